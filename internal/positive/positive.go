// Package positive holds the rule kwire's options share: a limit or
// setting left at zero (or set below it) means its default.
package positive

// Or is v when it is positive, else d (the default): cmp.Or for settings
// whose zero and negative values both mean "unset".
func Or[T ~int | ~int64](v, d T) T {
	if v > 0 {
		return v
	}
	return d
}
