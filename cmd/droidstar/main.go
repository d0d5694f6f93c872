// Command droidstar learns callback typestates of Android classes.
package main

import (
	"os"

	"github.com/droidstar/droidstar/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
