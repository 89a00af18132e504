package dag

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// maxNodes bounds what the readers accept (memory guard against hostile
// input).
const maxNodes = 1 << 20

// ReadNative reads a PTG in daggen's native text format (reference README,
// "Native format"): optional "//" comment lines, "NODE_COUNT k", then one
// "NODE id children type cost alpha" line per node, where children is a
// comma-separated id list or "-", type is ROOT, COMPUTATION, TRANSFER or
// END. COMPUTATION nodes become tasks (ordered by id) with cost in flop and
// α; an edge u → v is COMPUTATION u → TRANSFER → COMPUTATION v (or u → v
// directly). ROOT, END and transfer sizes are dropped (no communication
// model); duplicate edges are merged.
func ReadNative(r io.Reader) (*Graph, error) {
	type node struct {
		children []int
		typ      string
		cost     float64
		alpha    float64
		line     int
	}
	nodes := map[int]*node{}
	declared := -1
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	ln := 0
	for sc.Scan() {
		ln++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		f := strings.Fields(line)
		switch f[0] {
		case "NODE_COUNT":
			if len(f) != 2 {
				return nil, fmt.Errorf("native line %d: want \"NODE_COUNT k\"", ln)
			}
			k, err := strconv.Atoi(f[1])
			if err != nil || k < 0 || k > maxNodes {
				return nil, fmt.Errorf("native line %d: bad node count %q", ln, f[1])
			}
			declared = k
		case "NODE":
			if len(f) != 6 {
				return nil, fmt.Errorf("native line %d: want \"NODE id children type cost alpha\", got %d fields", ln, len(f))
			}
			id, err := strconv.Atoi(f[1])
			if err != nil || id < 0 {
				return nil, fmt.Errorf("native line %d: bad node id %q", ln, f[1])
			}
			if _, dup := nodes[id]; dup {
				return nil, fmt.Errorf("native line %d: node %d declared twice (first on line %d)", ln, id, nodes[id].line)
			}
			if len(nodes) >= maxNodes {
				return nil, fmt.Errorf("native line %d: more than %d nodes", ln, maxNodes)
			}
			n := &node{typ: f[3], line: ln}
			if f[2] != "-" {
				for _, c := range strings.Split(f[2], ",") {
					cid, err := strconv.Atoi(c)
					if err != nil || cid < 0 {
						return nil, fmt.Errorf("native line %d: bad child id %q", ln, c)
					}
					n.children = append(n.children, cid)
				}
			}
			if n.cost, err = parseNum(f[4]); err != nil {
				return nil, fmt.Errorf("native line %d: cost: %w", ln, err)
			}
			if n.alpha, err = parseNum(f[5]); err != nil {
				return nil, fmt.Errorf("native line %d: alpha: %w", ln, err)
			}
			switch n.typ {
			case "ROOT", "END", "COMPUTATION", "TRANSFER":
			default:
				return nil, fmt.Errorf("native line %d: node type %q is not ROOT, COMPUTATION, TRANSFER or END", ln, n.typ)
			}
			nodes[id] = n
		default:
			return nil, fmt.Errorf("native line %d: unexpected %q (want NODE_COUNT or NODE)", ln, f[0])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("native: %w", err)
	}
	if declared >= 0 && declared != len(nodes) {
		return nil, fmt.Errorf("native: NODE_COUNT %d but %d nodes", declared, len(nodes))
	}
	ids := make([]int, 0, len(nodes))
	for id, n := range nodes {
		if n.typ == "COMPUTATION" {
			ids = append(ids, id)
		}
	}
	sort.Ints(ids)
	index := make(map[int]int, len(ids))
	for i, id := range ids {
		index[id] = i
	}
	g := New(len(ids))
	for i, id := range ids {
		n := nodes[id]
		g.Tasks[i] = Task{Ops: n.cost, Alpha: n.alpha}
		for _, c := range n.children {
			cn, ok := nodes[c]
			if !ok {
				return nil, fmt.Errorf("native line %d: child %d of node %d is not declared", n.line, c, id)
			}
			switch cn.typ {
			case "COMPUTATION":
				g.AddEdge(i, index[c])
			case "TRANSFER":
				if len(cn.children) != 1 {
					return nil, fmt.Errorf("native line %d: transfer %d has %d children, want 1", cn.line, c, len(cn.children))
				}
				to, ok := nodes[cn.children[0]]
				if !ok || to.typ != "COMPUTATION" {
					return nil, fmt.Errorf("native line %d: transfer %d does not lead to a COMPUTATION node", cn.line, c)
				}
				g.AddEdge(i, index[cn.children[0]])
			}
		}
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("native: %w", err)
	}
	return g, nil
}

func parseNum(s string) (float64, error) {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("bad number %q", s)
	}
	return x, nil
}

func formatNum(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// WriteNative writes g in daggen's native format: ROOT 0 (children = the
// entry tasks), each task followed by one TRANSFER node per successor (size
// 0: the model has no communication), END last. ReadNative(WriteNative(g))
// returns g exactly (costs are written in shortest round-trip form).
func WriteNative(w io.Writer, g *Graph) error {
	bw := bufio.NewWriter(w)
	id := make([]int, g.Len())
	c := 1
	for v := range g.Len() {
		id[v] = c
		c += 1 + len(g.Succ[v])
	}
	end := c
	fmt.Fprintf(bw, "// PTG written by schedfarm (daggen native format)\nNODE_COUNT %d\n", end+1)
	var entries []string
	for v := range g.Len() {
		if len(g.Pred[v]) == 0 {
			entries = append(entries, strconv.Itoa(id[v]))
		}
	}
	fmt.Fprintf(bw, "NODE 0 %s ROOT 0.0 0.0\n", list(entries))
	for v, t := range g.Tasks {
		var ch []string
		for k := range g.Succ[v] {
			ch = append(ch, strconv.Itoa(id[v]+1+k))
		}
		if len(ch) == 0 {
			ch = []string{strconv.Itoa(end)}
		}
		fmt.Fprintf(bw, "NODE %d %s COMPUTATION %s %s\n", id[v], list(ch), formatNum(t.Ops), formatNum(t.Alpha))
		for k, s := range g.Succ[v] {
			fmt.Fprintf(bw, "NODE %d %d TRANSFER 0 0.0\n", id[v]+1+k, id[s])
		}
	}
	fmt.Fprintf(bw, "NODE %d - END 0.0 0.0\n", end)
	return bw.Flush()
}

func list(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ",")
}

// ReadDOT reads a PTG from the subset of Graphviz DOT that daggen --dot
// writes and that hand-written graphs use: "digraph name {", node
// statements `id [size="flop", alpha="a"]`, edge statements
// `u -> v [attrs]` (chains u -> v -> w too), optional ';', "//" and "#"
// comments, "}". Ids are bare or double-quoted; tasks are numbered in order
// of first appearance; a task without size costs 0 flop, without alpha has
// α = 0. Other attributes are ignored.
func ReadDOT(r io.Reader) (*Graph, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	index := map[string]int{}
	var tasks []Task
	var edges [][2]int
	node := func(name string) (int, error) {
		if i, ok := index[name]; ok {
			return i, nil
		}
		if len(tasks) >= maxNodes {
			return 0, fmt.Errorf("more than %d nodes", maxNodes)
		}
		index[name] = len(tasks)
		tasks = append(tasks, Task{})
		return len(tasks) - 1, nil
	}
	ln, opened, closed := 0, false, false
	for sc.Scan() {
		ln++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "//") || strings.HasPrefix(line, "#") {
			continue
		}
		if !opened {
			if !strings.HasPrefix(line, "digraph") || !strings.HasSuffix(line, "{") {
				return nil, fmt.Errorf("dot line %d: want \"digraph name {\", got %q", ln, line)
			}
			opened = true
			continue
		}
		if closed {
			return nil, fmt.Errorf("dot line %d: text after the closing brace", ln)
		}
		if line == "}" {
			closed = true
			continue
		}
		line = strings.TrimSuffix(line, ";")
		stmt, attrs := line, ""
		if i := strings.IndexByte(line, '['); i >= 0 {
			if !strings.HasSuffix(line, "]") {
				return nil, fmt.Errorf("dot line %d: unterminated attribute list", ln)
			}
			stmt, attrs = strings.TrimSpace(line[:i]), line[i+1:len(line)-1]
		}
		kv, err := parseAttrs(attrs)
		if err != nil {
			return nil, fmt.Errorf("dot line %d: %w", ln, err)
		}
		parts := strings.Split(stmt, "->")
		names := make([]string, len(parts))
		for i, p := range parts {
			n := strings.TrimSpace(p)
			if len(n) >= 2 && n[0] == '"' && n[len(n)-1] == '"' {
				n = n[1 : len(n)-1]
			}
			if n == "" || strings.ContainsAny(n, " \t\"=") {
				return nil, fmt.Errorf("dot line %d: bad node id %q", ln, strings.TrimSpace(p))
			}
			names[i] = n
		}
		if len(names) == 1 {
			if names[0] == "graph" || names[0] == "node" || names[0] == "edge" {
				continue
			}
			v, err := node(names[0])
			if err != nil {
				return nil, fmt.Errorf("dot line %d: %w", ln, err)
			}
			if s, ok := kv["size"]; ok {
				if tasks[v].Ops, err = parseNum(s); err != nil {
					return nil, fmt.Errorf("dot line %d: size: %w", ln, err)
				}
			}
			if s, ok := kv["alpha"]; ok {
				if tasks[v].Alpha, err = parseNum(s); err != nil {
					return nil, fmt.Errorf("dot line %d: alpha: %w", ln, err)
				}
			}
			continue
		}
		for i := 0; i+1 < len(names); i++ {
			u, err := node(names[i])
			if err != nil {
				return nil, fmt.Errorf("dot line %d: %w", ln, err)
			}
			v, err := node(names[i+1])
			if err != nil {
				return nil, fmt.Errorf("dot line %d: %w", ln, err)
			}
			edges = append(edges, [2]int{u, v})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("dot: %w", err)
	}
	if !opened || !closed {
		return nil, fmt.Errorf("dot: missing \"digraph {\" or closing \"}\"")
	}
	g := New(len(tasks))
	copy(g.Tasks, tasks)
	for _, e := range edges {
		if e[0] == e[1] {
			return nil, fmt.Errorf("dot: self-loop on task %d", e[0])
		}
		g.AddEdge(e[0], e[1])
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("dot: %w", err)
	}
	return g, nil
}

// parseAttrs reads `key="value", key = value` lists.
func parseAttrs(s string) (map[string]string, error) {
	kv := map[string]string{}
	s = strings.TrimSpace(s)
	for s != "" {
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			return nil, fmt.Errorf("attribute %q has no value", s)
		}
		key := strings.TrimSpace(s[:eq])
		s = strings.TrimSpace(s[eq+1:])
		var val string
		if strings.HasPrefix(s, "\"") {
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				return nil, fmt.Errorf("unterminated string in attribute %q", key)
			}
			val, s = s[1:1+end], s[2+end:]
		} else {
			end := strings.IndexAny(s, ", ;")
			if end < 0 {
				end = len(s)
			}
			val, s = s[:end], s[end:]
		}
		if key == "" {
			return nil, fmt.Errorf("empty attribute name")
		}
		kv[key] = val
		s = strings.TrimLeft(s, " ,;")
	}
	return kv, nil
}

// WriteDOT writes g in the DOT dialect of daggen --dot: one node statement
// per task with its size (flop) and alpha, then the edges. ReadDOT(WriteDOT(g))
// returns g exactly.
func WriteDOT(w io.Writer, g *Graph) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "digraph G {")
	for v, t := range g.Tasks {
		fmt.Fprintf(bw, "  %d [size=\"%s\", alpha=\"%s\"]\n", v+1, formatNum(t.Ops), formatNum(t.Alpha))
	}
	for v := range g.Tasks {
		for _, s := range g.Succ[v] {
			fmt.Fprintf(bw, "  %d -> %d\n", v+1, s+1)
		}
	}
	fmt.Fprintln(bw, "}")
	return bw.Flush()
}
