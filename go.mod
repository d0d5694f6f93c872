module github.com/droidstar/droidstar

go 1.24.0

require (
	github.com/awalterschulze/gographviz v2.0.3+incompatible
	github.com/goccy/go-yaml v1.19.2
	github.com/spf13/cobra v1.10.2
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
)
