package kernels

// The rescale loops: a platform hook converts a leading run of elements
// (0 without SIMD) and the generic loop of the same name carries on from
// there, up to the end or to the first element it cannot convert in int64,
// which runBlock then finishes with the exact path.
//
// The hooks, one per op, with the contract of the generic loops (convert a
// prefix, stop before the first element that needs the exact path, NaT
// kept and counted; lossy counts only non-NaT elements; dst may equal src):
//
//	mulCheckSIMD(dst, src []uint64, k uint64, lo, hi int64, swapIn, swapOut bool) (n, nat int)
//	floorDivSIMD(dst, src []uint64, d, magic uint64, shift uint, swapIn, swapOut bool) (n, nat, lossy int)
//	mulDivSIMD(dst, src []uint64, num, d, magic uint64, shift uint, qlo, qhi int64, swapIn, swapOut bool) (n, nat, lossy int)

func (t *Transcoder) mulWords(dst, src []uint64, swapIn, swapOut bool) (n, nat int) {
	p := &t.lin
	n, nat = mulCheckSIMD(dst, src, p.k, p.lo, p.hi, swapIn, swapOut)
	m, nat2 := mulLoop(dst[n:], src[n:], p, swapIn, swapOut)
	return n + m, nat + nat2
}

func (t *Transcoder) divWords(dst, src []uint64, swapIn, swapOut bool) (n, nat, lossy int) {
	p := &t.lin
	n, nat, lossy = floorDivSIMD(dst, src, p.div.d, p.div.magic, p.div.shift, swapIn, swapOut)
	m, nat2, lossy2 := divLoop(dst[n:], src[n:], p, swapIn, swapOut)
	return n + m, nat + nat2, lossy + lossy2
}

func (t *Transcoder) mulDivWords(dst, src []uint64, swapIn, swapOut bool) (n, nat, lossy int) {
	p := &t.lin
	n, nat, lossy = mulDivSIMD(dst, src, p.num, p.div.d, p.div.magic, p.div.shift, p.qlo, p.qhi, swapIn, swapOut)
	m, nat2, lossy2 := mulDivLoop(dst[n:], src[n:], p, swapIn, swapOut)
	return n + m, nat + nat2, lossy + lossy2
}
