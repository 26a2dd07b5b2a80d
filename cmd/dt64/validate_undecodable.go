package main

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"

	"github.com/zarr-dt64/dt64/zarr"
)

// numpyOtherDtype matches the NumPy dtype strings of the kinds dt64 does
// not decode but zarr-python writes and dt64 transcode copies as bytes:
// strings (U, S, a), objects (O) and raw void (V).
var numpyOtherDtype = regexp.MustCompile(`^[<>|=]?([USaV][0-9]+|O)$`)

// undecodable says why an array of a hierarchy that zarr.Open refused is
// valid Zarr that dt64 does not decode (so validate does not check it,
// and reports it so, rather than as a problem), or "" when the refusal is
// a problem: only the fields named here, and only for values the Zarr
// specification and zarr-python accept.
func undecodable(n zarr.Node, err error) string {
	var me *zarr.MetadataError
	if !errors.As(err, &me) {
		return ""
	}
	switch {
	case n.Format == 2 && me.Field == "dtype":
		if n.DataType == "" && strings.HasPrefix(strings.TrimSpace(string(n.DataTypeJSON)), "[") {
			return "a structured NumPy dtype"
		}
		if numpyOtherDtype.MatchString(n.DataType) {
			return "NumPy dtype " + n.DataType + ", which dt64 does not decode"
		}
	case n.Format == 2 && me.Field == "order":
		return `Fortran order ("F"), which dt64 does not decode`
	case n.Format == 3 && strings.HasPrefix(me.Field, "codecs"):
		// v2 filters and compressors dt64 has no codec for, as dt64 (and
		// zarr-python 3) migrate them: "numcodecs.<id>".
		var doc struct {
			Codecs []struct {
				Name string `json:"name"`
			} `json:"codecs"`
		}
		if json.Unmarshal(n.Metadata, &doc) == nil {
			for _, c := range doc.Codecs {
				if strings.HasPrefix(c.Name, "numcodecs.") && strings.Contains(err.Error(), `"`+c.Name+`"`) {
					return "codec " + c.Name + ", which dt64 does not decode"
				}
			}
		}
	}
	return ""
}
