package wire_test

import (
	"bytes"
	"fmt"
	"io"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/wire"
)

// Frames on a connection: WriteFrame adds the size prefix, ReadFrame reads
// one frame (size included) and refuses sizes above its limit before
// allocating for them.
func ExampleReadFrame() {
	var conn bytes.Buffer                   // any io.Reader and io.Writer: a net.Conn, a file
	payload := wire.AppendInt16(nil, 18)    // api key: ApiVersions
	payload = wire.AppendInt16(payload, 0)  // version
	payload = wire.AppendInt32(payload, 42) // correlation id
	payload = wire.AppendInt16(payload, -1) // client id: null
	if err := wire.WriteFrame(&conn, payload); err != nil {
		panic(err)
	}
	conn.Write([]byte{0x7f, 0xff, 0xff, 0xff}) // a hostile size: 2 GiB

	var buf []byte
	for {
		frame, err := wire.ReadFrame(&conn, buf, 1<<20)
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			break
		}
		buf = frame
		size, _ := wire.SizePrefix(frame)
		h, _ := codec.ParseRequestHeader(frame, codec.Options{})
		fmt.Println(size, h.APIKey, h.Version, h.CorrelationID, h.ClientID == nil)
	}
	// Output:
	// 10 18 0 42 true
	// wire: at byte 0: expected a frame size from 0 to 1048576, found 2147483647
}
