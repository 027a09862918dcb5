package api

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/tree"
)

// A decode whose request is over (the client gone) asks the payload hook
// nothing more (each call may be a schema registry's lookup, holding the
// decode's slot): its keys and values stay bytes, and one warning says
// why, in value JSON and annotated JSON alike.
func TestDecodePayloadStopsWithRequest(t *testing.T) {
	const produce = "000000c50000000900000007000a70726f64756365722d310000ffff0000753002076f72646572730200000000980100000000000000000000008b0000000002814492d5000000000000000001972ff9f5c0000001972ff9f5c00000000000000fa100000000000000000001b001000000146f726465722d313034325c7b226f72646572223a313034322c226974656d223a22657370726573736f206265616e73222c22717479223a327d021074726163652d69642034626639326633353737623334646136000000"
	calls := 0
	hook := func(dst []byte, p *codec.PayloadIn) ([]byte, []*tree.Node) {
		calls++
		return dst, nil
	}
	h := New(Options{Payload: hook})
	for _, q := range []string{"", "?format=annotated"} {
		live := do(t, h, "POST", "/api/decode"+q, "text/plain", []byte(produce))
		require.Equal(t, 200, live.Code, live.Body.String())
		require.NotZero(t, calls, "the hook is called while the request lasts")
		require.NotContains(t, live.Body.String(), "payload not decoded")

		calls = 0
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		req := httptest.NewRequest("POST", "/api/decode"+q, strings.NewReader(produce)).WithContext(ctx)
		req.Header.Set("Content-Type", "text/plain")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		require.Zero(t, calls, "the hook is called after the request ended")
		require.Equal(t, 1, strings.Count(w.Body.String(), "payload not decoded: the request ended"), w.Body.String())
	}
}
