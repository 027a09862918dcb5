package site

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
)

// favicon draws the site's icon (the SVG's blocks) as a 32×32 PNG inside
// an ICO file: browsers ask for /favicon.ico on pages that name no icon,
// such as the playground's.
func favicon() ([]byte, error) {
	const n = 32
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	blue := color.NRGBA{0x15, 0x65, 0xc0, 0xff}
	white := color.NRGBA{0xff, 0xff, 0xff, 0xff}
	blocks := []image.Rectangle{image.Rect(6, 8, 10, 24), image.Rect(12, 8, 16, 15), image.Rect(18, 8, 26, 15), image.Rect(12, 17, 26, 24)}
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			c := blue
			for _, r := range blocks {
				if image.Pt(x, y).In(r) {
					c = white
				}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var p bytes.Buffer
	if err := png.Encode(&p, img); err != nil {
		return nil, err
	}
	var ico bytes.Buffer
	binary.Write(&ico, binary.LittleEndian, [3]uint16{0, 1, 1}) // reserved, type icon, one image
	ico.Write([]byte{n, n, 0, 0})                               // width, height, palette, reserved
	binary.Write(&ico, binary.LittleEndian, [2]uint16{1, 32})   // planes, bits per pixel
	binary.Write(&ico, binary.LittleEndian, [2]uint32{uint32(p.Len()), 22})
	ico.Write(p.Bytes())
	return ico.Bytes(), nil
}
