package schema

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The generated constants name every API key and error code the tables
// know, each after its name, and nothing else.
func TestConstantsMatchTables(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "constants_gen.go", nil, parser.ParseComments)
	require.NoError(t, err)
	keys, codes, old := map[string]int{}, map[string]int{}, map[string]int{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			lit := vs.Values[0]
			neg := false
			if u, ok := lit.(*ast.UnaryExpr); ok {
				lit, neg = u.X, true
			}
			n, err := strconv.Atoi(lit.(*ast.BasicLit).Value)
			require.NoError(t, err)
			if neg {
				n = -n
			}
			name := vs.Names[0].Name
			switch {
			case strings.HasPrefix(name, "Key"):
				keys[name] = n
			case vs.Doc != nil && strings.Contains(vs.Doc.Text(), "Deprecated:"):
				old[name] = n
			case strings.HasPrefix(name, "Code"):
				codes[name] = n
			default:
				t.Errorf("unexpected constant %s", name)
			}
		}
	}
	require.Len(t, keys, len(APIs()))
	for _, a := range APIs() {
		require.Equal(t, int(a.Key), keys["Key"+a.Name], a.Name)
	}
	named := 0
	for i, n := range errorNames {
		if n == "" {
			continue
		}
		named++
		code := i + errorBase
		var want strings.Builder
		for _, w := range strings.Split(n, "_") {
			if w == "ID" {
				want.WriteString(w)
			} else {
				want.WriteString(w[:1] + strings.ToLower(w[1:]))
			}
		}
		require.Equal(t, code, codes["Code"+want.String()], n)
	}
	require.Len(t, codes, named)
	require.Equal(t, len(renamedErrors), len(old))
	require.Equal(t, 6, old["CodeNotLeaderForPartition"])

	// The constants are untyped, so they compare with the int16 fields of
	// headers and nodes as they are.
	var key int16 = 3
	require.True(t, key == KeyMetadata)
	require.Equal(t, "NOT_LEADER_OR_FOLLOWER", ErrorName(CodeNotLeaderOrFollower))
	require.Equal(t, "UNKNOWN_TOPIC_ID", ErrorName(CodeUnknownTopicID))
	require.Equal(t, "UNKNOWN_SERVER_ERROR", ErrorName(CodeUnknownServerError))
	require.Equal(t, "Metadata", APIName(KeyMetadata))
	require.Equal(t, "", APIName(-1))
}

func TestErrorCodeByName(t *testing.T) {
	for name, want := range map[string]int16{
		"NOT_LEADER_OR_FOLLOWER":          6,
		"NOT_LEADER_FOR_PARTITION":        6, // before Kafka 2.6
		"not_leader_for_partition":        6,
		"GROUP_COORDINATOR_NOT_AVAILABLE": 15,
		"NOT_COORDINATOR_FOR_GROUP":       16,
		"UNKNOWN_SERVER_ERROR":            -1,
		"POSITION_OUT_OF_RANGE":           99,
		"SHARE_SESSION_LIMIT_REACHED":     133,
	} {
		got, ok := ErrorCodeByName(name)
		require.True(t, ok, name)
		require.Equal(t, want, got, name)
	}
	_, ok := ErrorCodeByName("NO_SUCH_ERROR")
	require.False(t, ok)
	require.Equal(t, "NOT_LEADER_OR_FOLLOWER", ErrorName(CodeNotLeaderForPartition), "the old name's code prints with today's name")
}
