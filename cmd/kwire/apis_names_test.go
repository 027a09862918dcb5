package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// An API name a slip away from one (a letter wrong, missing or extra)
// is answered with that one, in every command that takes API names;
// others are pointed at kwire apis.
func TestUnknownAPISuggestsTheNearest(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"Fech", "did you mean Fetch?"},
		{"ApiVersion", "did you mean ApiVersions?"},
		{"metdata", "did you mean Metadata?"},
		{"ListOffset", "did you mean ListOffsets?"},
		{"xyz", "(run kwire apis)"},
		{strings.Repeat("a", 1000), "(run kwire apis)"},
	} {
		_, errOut, code := runCLI(t, []string{"schema", c.name}, nil)
		require.Equal(t, 2, code)
		require.Contains(t, errOut, c.want, c.name)
		_, errOut, code = runCLI(t, []string{"decode", "--response", "--api", c.name, "00000008000000070000"}, nil)
		require.NotEqual(t, 0, code)
		require.Contains(t, errOut, c.want, c.name)
	}
	out, _, _ := runCLI(t, []string{"batch"}, []byte(`{"api":"Fech","hex":"0000"}`+"\n"))
	require.Contains(t, out, "did you mean Fetch?")
}
