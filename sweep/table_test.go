package sweep

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWriteTable(t *testing.T) {
	reg := testRegistry(t)
	_, jobs := loadGood(t, "basic.yaml")
	var b bytes.Buffer
	if err := WriteTable(&b, jobs[:2], reg); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	header := strings.Fields(lines[0])
	want := []string{"index", "sweep", "replicate", "seed", "id", "work_ms", "size", "noise", "rows", "variant", "fail"}
	if strings.Join(header, " ") != strings.Join(want, " ") {
		t.Errorf("header %v, want %v", header, want)
	}
	row := strings.Fields(lines[1])
	if row[0] != "0" || row[1] != "basic" || row[4] != jobs[0].ID.String() || row[9] != "a" {
		t.Errorf("row %v", row)
	}
}

func TestWriteJSON(t *testing.T) {
	_, jobs := loadGood(t, "when.yaml")
	var b bytes.Buffer
	if err := WriteJSON(&b, jobs); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&b)
	i := 0
	for sc.Scan() {
		var got struct {
			ID         string         `json:"id"`
			Index      int            `json:"index"`
			Params     map[string]any `json:"params"`
			SeedString string         `json:"seed_string"`
		}
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		j := jobs[i]
		if got.ID != j.ID.String() || got.Index != j.Index || got.Params["algorithm"] != j.Params["algorithm"] {
			t.Errorf("line %d: %+v", i, got)
		}
		if got.SeedString == "" || got.SeedString != jsonSeed(j.Seed) {
			t.Errorf("line %d: seed_string %q", i, got.SeedString)
		}
		i++
	}
	if i != len(jobs) {
		t.Errorf("%d lines, %d jobs", i, len(jobs))
	}
}

func jsonSeed(s uint64) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// FuzzParse feeds arbitrary text to Parse (and expands what parses, under a
// small limit): nothing may panic or hang. The corpus is every testdata file.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.yaml")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	reg := testRegistry(f)
	f.Fuzz(func(t *testing.T, text []byte) {
		// A hang is a bug too; crashing the worker makes the fuzzer
		// record the input.
		tm := time.AfterFunc(5*time.Second, func() { panic(fmt.Sprintf("input hangs: %q", text)) })
		defer tm.Stop()
		file, err := Parse("fuzz.yaml", text, reg)
		if err != nil {
			if file != nil {
				t.Fatal("file and error")
			}
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		for _, s := range file.Sweeps {
			// Count without a bound could enumerate a huge sweep.
			if _, _, err := s.countAtMost(t.Context(), 10_000); err != nil {
				return
			}
		}
		_, _ = file.Expand(10_000)
	})
}
