// Command layers prints the module's package layers (internal/layers) or,
// with -w FILE, rewrites the generated block of FILE (docs/architecture.md). It exits 1 when an import breaks a direction of
// the architecture.
//
//	go run ./scripts/layers -w docs/architecture.md
package main

import (
	"flag"
	"fmt"
	"os"

	"schedfarm/internal/layers"
)

func main() {
	write := flag.String("w", "", "rewrite the generated block of this Markdown file")
	root := flag.String("root", ".", "the module's root")
	flag.Parse()
	g, err := layers.Read(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	status := 0
	for _, b := range g.Check() {
		fmt.Fprintln(os.Stderr, "layers:", b)
		status = 1
	}
	if *write == "" {
		pic, err := g.Picture()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Print(pic)
		os.Exit(status)
	}
	block, err := g.Block()
	if err == nil {
		var doc []byte
		if doc, err = os.ReadFile(*write); err == nil {
			var out string
			if out, err = layers.Replace(string(doc), block); err == nil {
				err = os.WriteFile(*write, []byte(out), 0o644)
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(status)
}
