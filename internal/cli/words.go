package cli

import (
	"fmt"
	"strings"
)

// plural counts n of a word for a person: "1 query", "3 queries",
// "0 states". The nouns droidstar counts are regular, so a consonant and
// y becomes -ies and everything else takes -s, without a table of
// irregular words.
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if stem, ok := strings.CutSuffix(word, "y"); ok && stem != "" && !strings.ContainsAny(stem[len(stem)-1:], "aeiou") {
		return fmt.Sprintf("%d %sies", n, stem)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
