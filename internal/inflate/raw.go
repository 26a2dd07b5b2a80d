package inflate

// Raw decodes the raw DEFLATE stream (RFC 1951) at the start of src into
// dst and returns the number of bytes written. Bytes after the stream's
// final block are ignored. A stream that decodes to more than len(dst)
// bytes fails with ErrTooLarge; one that decodes to fewer returns n <
// len(dst), so a caller expecting an exact size compares n with it.
func Raw(dst, src []byte) (n int, err error) {
	n, _, err = raw(dst, src)
	return n, err
}

// raw is Raw that also returns the bytes of src the stream occupies.
func raw(dst, src []byte) (n, used int, err error) {
	d := decoders.Get().(*decoder)
	n, used, err = d.inflate(dst, src)
	decoders.Put(d)
	return n, used, err
}
