package check

import (
	"strconv"
	"strings"
)

func itoa(i int) string { return strconv.Itoa(i) }

func i64(v int64) string { return strconv.FormatInt(v, 10) }

// article is "an" before a word that starts with a vowel (every
// enumeration's name: AclOperation, IsolationLevel), else "a".
func article(word string) string {
	if word != "" && strings.IndexByte("AEIOUaeiou", word[0]) >= 0 {
		return "an"
	}
	return "a"
}

// atoi is s as a number, 0 when it is none.
func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
