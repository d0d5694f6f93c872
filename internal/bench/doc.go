package bench

import (
	"fmt"
	"strings"
)

// The benchmark document (internal/bench/README.md) opens with a headline
// between these markers, and the top-level README quotes that block
// verbatim; a test in this package keeps the block's figures those the
// bench prints.
const (
	HeadlineStart = "<!-- headline -->"
	HeadlineEnd   = "<!-- /headline -->"
)

// Headline returns what lies between doc's headline markers, without the
// newlines next to them, so that a test can check that two documents
// carry the same block. It is an error when doc has no such block or
// more than one.
func Headline(doc string) (string, error) {
	_, rest, ok := strings.Cut(doc, HeadlineStart)
	if !ok {
		return "", fmt.Errorf("no %s marker", HeadlineStart)
	}
	block, after, ok := strings.Cut(rest, HeadlineEnd)
	if !ok {
		return "", fmt.Errorf("%s has no %s after it", HeadlineStart, HeadlineEnd)
	}
	if strings.Contains(after, HeadlineStart) || strings.Contains(block, HeadlineStart) {
		return "", fmt.Errorf("more than one %s marker", HeadlineStart)
	}
	return strings.Trim(block, "\n"), nil
}
