// Package deps pins the decided dependencies until the packages that use them land.
package deps

import (
	_ "github.com/awalterschulze/gographviz"
	_ "github.com/goccy/go-yaml"
	_ "github.com/spf13/cobra"
	_ "gonum.org/v1/gonum/graph/simple"
)
