package workload

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"

	"schedfarm/simcore"
)

// KnownTrace is a Parallel Workloads Archive log the farm knows by name.
type KnownTrace struct {
	File   string // file name under traces/ in the data directory
	SHA256 string // of the file as distributed (compressed)
	Jobs   int    // job lines
	Paper  string // the seed that uses it, if any
}

// PWA is the Parallel Workloads Archive's logs page.
const PWA = "https://www.cs.huji.ac.il/labs/parallel/workload/logs.html"

// TraceDir is the folder of the data directory holding traces.
const TraceDir = "traces"

// Known lists the logs the farm knows, with the checksums of the files as the archive distributes them.
var Known = []KnownTrace{
	{"CTC-SP2-1996-3.1-cln.swf.gz", "9fa28ac16c4386fb81b72a91d8bd8888281df2948a9d912769d387c5ee285bb4", 77222, "Krallmann et al. 1999 (seed 002)"},
	{"SDSC-Par-1996-3.1-cln.swf.gz", "cb1aab02b5e3c34659d1c1d6f73c002d415229c59f40c03fab4e20331abdaff7", 32135, "Saule et al. (seed 003)"},
	{"OSC-Clust-2000-3.1-cln.swf.gz", "f2d762130a55ab26cfedc37a9f4ab55923dd07bf185912ded67628f14dbf09ab", 36097, "Saule et al. (seed 003)"},
	{"KTH-SP2-1996-2.1-cln.swf.gz", "3e152f201fd2e96808a735bced6ea6eb0bb07fdc447689cafb0750d87b264c0b", 28476, ""},
	{"SDSC-SP2-1998-4.2-cln.swf.gz", "e03fe48be50c4ab04d6bb2285296d9c3399e9c1f27ee79b754ad32a14abd9bac", 59715, ""},
	{"LANL-CM5-1994-4.1-cln.swf.gz", "71ff3dfa301b3ee1bd30ebc63c5363b5e8ec488e75f1f9398aa46d485ef23c3c", 122060, ""},
	{"SDSC-BLUE-2000-4.2-cln.swf.gz", "9aab21f3cfa108f3ecefa52391b384d996dcf4216f920186f47a734646b2c658", 243306, ""},
	{"HPC2N-2002-2.2-cln.swf.gz", "3c534857d6065cfd9cc35aac8d064c9c17172be7acf336de835006f43a626e64", 202871, ""},
	{"CEA-Curie-2011-2.1-cln.swf.gz", "2a0fdbd40837590b491bbbac7d4cfe521de1f0b14c0dc39bbf82c4e49ea75bce", 312826, ""},
	{"LLNL-Atlas-2006-2.1-cln.swf.gz", "48cc83b7a0490252aa1ae41a4b03dd598bc0683e146be94047febee36e7e0b36", 43778, ""},
	{"LLNL-Thunder-2007-1.1-cln.swf.gz", "00d9bce501efd3a23cd0713bbae591516b7a69217d5f4b851725f601f3b75247", 121039, ""},
	{"LPC-EGEE-2004-1.2-cln.swf.gz", "2fc37df5cc14c355fc7a88235f72e54fdf5f0d93de09399d015383ee5c35a59d", 234889, ""},
	{"SDSC-DS-2004-2.1-cln.swf.gz", "0ddb885a96a7f5ee9009d8a36ef350b1d1c451044c205811938995aac80fcc36", 96069, ""},
	{"Sandia-Ross-2001-1.1-cln.swf.gz", "08b390c160c41c5d3a70d66c48884b5bb68aa277506988ccdc408913342b38df", 57882, ""},
	{"NASA-iPSC-1993-3.1-cln.swf", "9d997a2c20a7f7b0b6d81638d756ce8b2c524c4f2e9ec78da36001743ca33d76", 18239, ""},
}

// LookupKnown returns the known trace whose file name is the base of name.
func LookupKnown(name string) (KnownTrace, bool) {
	base := path.Base(name)
	for _, k := range Known {
		if k.File == base {
			return k, true
		}
	}
	return KnownTrace{}, false
}

// OpenTrace opens a log from the data directory. When the file is missing
// the error says which file was looked for and where to download it.
func OpenTrace(data simcore.DataDir, name string) (io.ReadCloser, error) {
	if data == nil {
		return nil, fmt.Errorf("trace %q: no data directory configured (--data-dir)", name)
	}
	f, err := data.Open(name)
	if err == nil {
		return f, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w; %s", err, DownloadHint(name))
	}
	return nil, err
}

// DownloadHint says where to get a missing log: the Parallel Workloads
// Archive, the folder to put it in, and for a known trace its checksum.
func DownloadHint(name string) string {
	hint := fmt.Sprintf("download %s from the Parallel Workloads Archive (%s) into the data directory's %s/ folder",
		path.Base(name), PWA, path.Dir(name))
	if k, ok := LookupKnown(name); ok {
		hint += fmt.Sprintf(" (expected SHA-256 %s; `schedfarm traces` checks it)", k.SHA256)
	}
	return hint
}

// TraceStatus is what CheckKnown found for one known trace.
type TraceStatus struct {
	KnownTrace
	Found  bool
	Match  bool
	Actual string // SHA-256 of the file found
	Err    string // why it could not be read, if it exists but failed
}

// CheckKnown looks every known trace up in the data directory and hashes it.
func CheckKnown(data simcore.DataDir) []TraceStatus {
	out := make([]TraceStatus, 0, len(Known))
	for _, k := range Known {
		st := TraceStatus{KnownTrace: k}
		f, err := data.Open(path.Join(TraceDir, k.File))
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				st.Err = err.Error()
			}
			out = append(out, st)
			continue
		}
		st.Found = true
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			st.Err = err.Error()
		}
		f.Close()
		st.Actual = hex.EncodeToString(h.Sum(nil))
		st.Match = st.Actual == k.SHA256
		out = append(out, st)
	}
	return out
}
