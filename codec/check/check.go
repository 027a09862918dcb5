package check

// Check applies every rule to exchanges given in the order they completed
// and returns the findings, each exchange's in turn, then those judged at
// the end.
func Check(xs []Exchange) []Finding { return CheckLimits(xs, Limits{}) }

// CheckLimits is Check decoding each frame within limits.
func CheckLimits(xs []Exchange, limits Limits) []Finding {
	z := Analyzer{Limits: limits}
	c := NewChecker()
	var out []Finding
	for i := range xs {
		out = append(out, c.Add(z.Analyze(&xs[i]))...)
	}
	return append(out, c.End()...)
}
