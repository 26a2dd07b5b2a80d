package objstore

// TrackReadVersions makes the store remember the ETag of each value Get
// returns (and that a key was missing) until ReadVersion takes it: the
// ETag of the answer itself, so checking a value just read costs no HEAD,
// and it is the version of exactly the bytes read.
func (s *S3) TrackReadVersions() { s.reads.TrackReadVersions() }

// ReadVersion returns, once, the version (as Version gives it) of the
// value the last Get of key returned, or false when it was not kept.
func (s *S3) ReadVersion(key string) (string, bool) { return s.reads.ReadVersion(key) }
