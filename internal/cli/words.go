package cli

import "github.com/droidstar/droidstar/internal/nouns"

// plural counts n of a word for a person: "1 query", "3 queries".
func plural(n int, word string) string { return nouns.Count(n, word) }
