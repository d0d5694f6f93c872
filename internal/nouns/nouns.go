// Package nouns counts things in messages: "1 callback", "2 callbacks",
// "3 queries". It depends on nothing, so that every floor's messages can
// use it.
package nouns

import (
	"strconv"
	"strings"
)

// Count counts n of a noun for a person. The nouns droidstar counts are
// regular, so a consonant and y becomes -ies and everything else takes -s,
// without a table of irregular words.
func Count(n int, noun string) string {
	return strconv.Itoa(n) + " " + Of(n, noun)
}

// Of is the noun's form for n of it, without the number: for lists that
// print the number apart ("2 of 3 devices" counts the 3).
func Of(n int, noun string) string {
	if n == 1 {
		return noun
	}
	if stem, ok := strings.CutSuffix(noun, "y"); ok && stem != "" && !strings.ContainsAny(stem[len(stem)-1:], "aeiou") {
		return stem + "ies"
	}
	return noun + "s"
}
