package api

import (
	"context"
	"strconv"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/tree"
)

// payloadTime bounds how long one decode's payload hook may work: keys and
// values may ask a schema registry (each lookup up to its timeout), and
// kwire serve's write timeout (30 s) would drop the answer silently while
// the decode held its slot. Past it, or once the request's context is
// done (the client gone), the keys and values left stay bytes, with one
// warning, and the decode ends with the frame's own walk.
const payloadTime = 20 * time.Second

// payloadUntil is hook for one request: a hook that stops reading keys and
// values once ctx is done or payloadTime has passed (nil when hook is),
// and the function that frees its timer once the decode is over.
func payloadUntil(ctx context.Context, hook func(dst []byte, p *codec.PayloadIn) ([]byte, []*tree.Node)) (func(dst []byte, p *codec.PayloadIn) ([]byte, []*tree.Node), context.CancelFunc) {
	if hook == nil {
		return nil, func() {}
	}
	ctx, cancel := context.WithTimeout(ctx, payloadTime)
	said := false
	return func(dst []byte, p *codec.PayloadIn) ([]byte, []*tree.Node) {
		if ctx.Err() == nil {
			return hook(dst, p)
		}
		if !said {
			said = true
			why := "the request ended (its client is gone)"
			if ctx.Err() == context.DeadlineExceeded {
				why = "the decode's time for keys and values (" + strconv.Itoa(int(payloadTime/time.Second)) + " s) is spent"
			}
			msg := "payload not decoded: " + why + "; this key or value and later ones stay bytes"
			if p.Warnings != nil {
				p.Warnings.Add(codec.Warning{Offset: p.Start, Buf: p.Buf, Path: p.Path(), Message: msg, Limit: true})
			}
			if p.Slab != nil && p.Node != nil {
				p.Node.Warnings = append(p.Node.Warnings, msg)
			}
		}
		return dst, nil
	}, cancel
}
