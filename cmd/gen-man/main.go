// Command gen-man writes droidstar's manual pages (make man): one per
// command and one per help topic, generated from the command tree and the
// topics that droidstar's own help prints.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/droidstar/droidstar/internal/cli"
)

func main() {
	dir := flag.String("o", "bin/man", "the folder the pages are written to")
	flag.Parse()
	files, err := cli.WriteManPages(*dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gen-man: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %d manual pages in %s (man -l %s/droidstar.1)\n", len(files), *dir, *dir)
}
