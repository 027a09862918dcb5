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

// later counts the later requests a response came after: "1 later
// request", "3 later requests".
func later(n int) string {
	if n == 1 {
		return "1 later request"
	}
	return itoa(n) + " later requests"
}
