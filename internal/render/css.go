package render

import _ "embed"

// CSS styles the grid that AppendGridHTML writes and the playground draws.
//
//go:embed grid.css
var CSS string
