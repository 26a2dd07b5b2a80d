package inflate

import "os"

// UseKlauspost is true when the environment variable DT64_INFLATE is
// "klauspost", read once at start: the zarr and blosc packages then
// decode gzip and zlib with github.com/klauspost/compress instead of this
// package. It is the switch back should this decoder ever be in doubt,
// and a way to compare the two on real data.
var UseKlauspost = os.Getenv("DT64_INFLATE") == "klauspost"
