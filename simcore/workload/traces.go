package workload

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"schedfarm/simcore"
)

// KnownTrace is a Parallel Workloads Archive log the farm knows by name.
type KnownTrace struct {
	File   string // file name under traces/ in the data directory
	URL    string // where the archive serves it: File, or File+".gz" when the archive gzips a file kept uncompressed
	SHA256 string // of the file as distributed, as kept under traces/ (compressed when File ends in .gz)
	Size   int64  // bytes of the file as kept under traces/ (bounds a download)
	Jobs   int    // job lines
	Paper  string // the key of the paper that uses it (its configs/ folder), if any
}

// Name is the trace's name without the directory and the .swf or .swf.gz
// suffix: CTC-SP2-1996-3.1-cln. `schedfarm traces fetch` takes it.
func (k KnownTrace) Name() string {
	return TrimTraceSuffix(k.File)
}

// TrimTraceSuffix removes a trailing .gz and then a trailing .swf from name.
func TrimTraceSuffix(name string) string {
	return strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".swf")
}

// Gunzip reports whether the archive serves the file gzipped while the
// farm keeps it uncompressed: the URL's base name is File plus ".gz".
func (k KnownTrace) Gunzip() bool {
	return path.Base(k.URL) == k.File+".gz"
}

// PWA is the Parallel Workloads Archive's logs page.
const PWA = "https://www.cs.huji.ac.il/labs/parallel/workload/logs.html"

// Archive is the base URL of the Parallel Workloads Archive's log files.
const Archive = "https://www.cs.huji.ac.il/labs/parallel/workload/"

// TraceDir is the folder of the data directory holding traces.
const TraceDir = "traces"

// Known lists the Parallel Workloads Archive logs the farm knows, where the
// archive serves each, and the SHA-256 and size of each file as the archive
// distributes it (for NASA-iPSC, which the farm keeps uncompressed, of the
// file the archive's .gz decompresses to).
var Known = []KnownTrace{
	{
		File:   "CTC-SP2-1996-3.1-cln.swf.gz",
		URL:    Archive + "l_ctc_sp2/CTC-SP2-1996-3.1-cln.swf.gz",
		SHA256: "9fa28ac16c4386fb81b72a91d8bd8888281df2948a9d912769d387c5ee285bb4",
		Size:   1487336, Jobs: 77222, Paper: "krallmann1999",
	},
	{
		File:   "SDSC-Par-1996-3.1-cln.swf.gz",
		URL:    Archive + "l_sdsc_par/SDSC-Par-1996-3.1-cln.swf.gz",
		SHA256: "cb1aab02b5e3c34659d1c1d6f73c002d415229c59f40c03fab4e20331abdaff7",
		Size:   497990, Jobs: 32135, Paper: "saule2012",
	},
	{
		File:   "OSC-Clust-2000-3.1-cln.swf.gz",
		URL:    Archive + "l_osc/OSC-Clust-2000-3.1-cln.swf.gz",
		SHA256: "f2d762130a55ab26cfedc37a9f4ab55923dd07bf185912ded67628f14dbf09ab",
		Size:   536437, Jobs: 36097, Paper: "saule2012",
	},
	{
		File:   "KTH-SP2-1996-2.1-cln.swf.gz",
		URL:    Archive + "l_kth_sp2/KTH-SP2-1996-2.1-cln.swf.gz",
		SHA256: "3e152f201fd2e96808a735bced6ea6eb0bb07fdc447689cafb0750d87b264c0b",
		Size:   411455, Jobs: 28476,
	},
	{
		File:   "SDSC-SP2-1998-4.2-cln.swf.gz",
		URL:    Archive + "l_sdsc_sp2/SDSC-SP2-1998-4.2-cln.swf.gz",
		SHA256: "e03fe48be50c4ab04d6bb2285296d9c3399e9c1f27ee79b754ad32a14abd9bac",
		Size:   1205570, Jobs: 59715,
	},
	{
		File:   "LANL-CM5-1994-4.1-cln.swf.gz",
		URL:    Archive + "l_lanl_cm5/LANL-CM5-1994-4.1-cln.swf.gz",
		SHA256: "71ff3dfa301b3ee1bd30ebc63c5363b5e8ec488e75f1f9398aa46d485ef23c3c",
		Size:   2138864, Jobs: 122060,
	},
	{
		File:   "SDSC-BLUE-2000-4.2-cln.swf.gz",
		URL:    Archive + "l_sdsc_blue/SDSC-BLUE-2000-4.2-cln.swf.gz",
		SHA256: "9aab21f3cfa108f3ecefa52391b384d996dcf4216f920186f47a734646b2c658",
		Size:   4070091, Jobs: 243306,
	},
	{
		File:   "HPC2N-2002-2.2-cln.swf.gz",
		URL:    Archive + "l_hpc2n/HPC2N-2002-2.2-cln.swf.gz",
		SHA256: "3c534857d6065cfd9cc35aac8d064c9c17172be7acf336de835006f43a626e64",
		Size:   2997773, Jobs: 202871,
	},
	{
		File:   "CEA-Curie-2011-2.1-cln.swf.gz",
		URL:    Archive + "l_cea_curie/CEA-Curie-2011-2.1-cln.swf.gz",
		SHA256: "2a0fdbd40837590b491bbbac7d4cfe521de1f0b14c0dc39bbf82c4e49ea75bce",
		Size:   3629411, Jobs: 312826,
	},
	{
		File:   "LLNL-Atlas-2006-2.1-cln.swf.gz",
		URL:    Archive + "l_llnl_atlas/LLNL-Atlas-2006-2.1-cln.swf.gz",
		SHA256: "48cc83b7a0490252aa1ae41a4b03dd598bc0683e146be94047febee36e7e0b36",
		Size:   503642, Jobs: 43778,
	},
	{
		File:   "LLNL-Thunder-2007-1.1-cln.swf.gz",
		URL:    Archive + "l_llnl_thunder/LLNL-Thunder-2007-1.1-cln.swf.gz",
		SHA256: "00d9bce501efd3a23cd0713bbae591516b7a69217d5f4b851725f601f3b75247",
		Size:   1312559, Jobs: 121039,
	},
	{
		File:   "LPC-EGEE-2004-1.2-cln.swf.gz",
		URL:    Archive + "l_lpc/LPC-EGEE-2004-1.2-cln.swf.gz",
		SHA256: "2fc37df5cc14c355fc7a88235f72e54fdf5f0d93de09399d015383ee5c35a59d",
		Size:   2718006, Jobs: 234889,
	},
	{
		File:   "SDSC-DS-2004-2.1-cln.swf.gz",
		URL:    Archive + "l_sdsc_ds/SDSC-DS-2004-2.1-cln.swf.gz",
		SHA256: "0ddb885a96a7f5ee9009d8a36ef350b1d1c451044c205811938995aac80fcc36",
		Size:   1639097, Jobs: 96069,
	},
	{
		File:   "Sandia-Ross-2001-1.1-cln.swf.gz",
		URL:    Archive + "l_sandia_ross/Sandia-Ross-2001-1.1-cln.swf.gz",
		SHA256: "08b390c160c41c5d3a70d66c48884b5bb68aa277506988ccdc408913342b38df",
		Size:   1151095, Jobs: 57882,
	},
	{
		File:   "NASA-iPSC-1993-3.1-cln.swf",
		URL:    Archive + "l_nasa_ipsc/NASA-iPSC-1993-3.1-cln.swf.gz",
		SHA256: "9d997a2c20a7f7b0b6d81638d756ce8b2c524c4f2e9ec78da36001743ca33d76",
		Size:   1678956, Jobs: 18239,
	},
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
// the error says which file was looked for and how to get it.
func OpenTrace(data simcore.DataDir, name string) (io.ReadCloser, error) {
	if data == nil {
		return nil, fmt.Errorf("trace %q: no data directory configured (--data-dir)", name)
	}
	f, err := data.Open(name)
	if err == nil {
		return f, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w; %s", err, DownloadHint(data, name))
	}
	return nil, err
}

// DownloadHint says how to get a missing log. For a known trace it is the
// command that fetches it into data (its first directory, when data is a
// simcore.Dirs), then the archive's URL and the expected SHA-256 for a
// download by hand; for another file under traces/, the Parallel Workloads
// Archive's logs page and the folder to put it in.
func DownloadHint(data simcore.DataDir, name string) string {
	dest := "<data-dir>"
	flag := ""
	if dirs, ok := data.(simcore.Dirs); ok && len(dirs) > 0 {
		dest = dirs[0]
		flag = " --data-dir " + ShellQuote(dirs[0])
	}
	k, ok := LookupKnown(name)
	if !ok || path.Join(TraceDir, k.File) != path.Clean(name) {
		return fmt.Sprintf("download %s from the Parallel Workloads Archive (%s) into the data directory's %s/ folder",
			path.Base(name), PWA, path.Dir(name))
	}
	how := fmt.Sprintf("download %s into %s/%s/", k.URL, dest, TraceDir)
	sum := "expected SHA-256 " + k.SHA256
	if k.Gunzip() {
		how = fmt.Sprintf("download %s and gunzip it into %s/%s/", k.URL, dest, TraceDir)
		sum += " once gunzipped"
	}
	return fmt.Sprintf("run `schedfarm traces fetch%s %s` (or %s; %s)", flag, k.Name(), how, sum)
}

// ShellQuote quotes s for a POSIX shell unless it needs no quoting.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,:/@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
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
	return Check(data, Known)
}

// Check looks each of traces up in the data directory and hashes it.
func Check(data simcore.DataDir, traces []KnownTrace) []TraceStatus {
	out := make([]TraceStatus, 0, len(traces))
	for _, k := range traces {
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
