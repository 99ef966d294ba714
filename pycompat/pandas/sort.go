package pandas

import "math/bits"

// SortDescending returns the order in which pandas' sort_values(...,
// ascending=False) (kind "quicksort", the default) lists n items whose keys
// compare with less (less(i, j): key i < key j; it must be a strict weak
// order): nargsort reverses the keys, argsorts them with ArgsortQuick and
// reverses the result (pandas/core/sorting.py). Ties are not kept in input
// order once there are more than 16 items, exactly as pandas orders them. n
// = 0 gives nil.
func SortDescending(n int, less func(i, j int) bool) []int {
	if n == 0 {
		return nil
	}
	// R[i] = K[n-1-i]
	rless := func(a, b int) bool { return less(n-1-a, n-1-b) }
	p := ArgsortQuick(n, rless)
	order := make([]int, n)
	for j := range order {
		order[j] = n - 1 - p[n-1-j]
	}
	return order
}

// ArgsortQuick is numpy's argsort(kind="quicksort") of n keys compared by
// less (npy_aquicksort of numpy/_core/src/npysort/quicksort.cpp, the generic
// one, not the SIMD sorts of some CPUs and dtypes): an introsort of an index
// array with median-of-three partitioning, insertion sort below 17 elements
// and a heapsort fallback past depth 2*floor(log2 n). It returns the index
// of each key in sorted order; equal keys are not kept in input order above
// 16 keys. less must be a strict weak order; it is not called concurrently.
func ArgsortQuick(n int, less func(a, b int) bool) []int {
	t := make([]int, n)
	for i := range t {
		t[i] = i
	}
	if n < 2 {
		return t
	}
	type frame struct{ pl, pr, depth int }
	var stack []frame
	pl, pr := 0, n-1
	depth := 2 * (bits.Len(uint(n)) - 1)
	k := func(i int) int { return t[i] }
	for {
		if depth < 0 {
			aheapsort(t[pl:pr+1], less)
			goto pop
		}
		for pr-pl > 15 {
			pm := pl + (pr-pl)/2
			if less(k(pm), k(pl)) {
				t[pm], t[pl] = t[pl], t[pm]
			}
			if less(k(pr), k(pm)) {
				t[pr], t[pm] = t[pm], t[pr]
			}
			if less(k(pm), k(pl)) {
				t[pm], t[pl] = t[pl], t[pm]
			}
			vp := t[pm]
			pi, pj := pl, pr-1
			t[pm], t[pj] = t[pj], t[pm]
			for {
				pi++
				for less(t[pi], vp) {
					pi++
				}
				pj--
				for less(vp, t[pj]) {
					pj--
				}
				if pi >= pj {
					break
				}
				t[pi], t[pj] = t[pj], t[pi]
			}
			pk := pr - 1
			t[pi], t[pk] = t[pk], t[pi]
			depth--
			if pi-pl < pr-pi {
				stack = append(stack, frame{pi + 1, pr, depth})
				pr = pi - 1
			} else {
				stack = append(stack, frame{pl, pi - 1, depth})
				pl = pi + 1
			}
		}
		// insertion sort
		for pi := pl + 1; pi <= pr; pi++ {
			vi := t[pi]
			pj := pi
			for pj > pl && less(vi, t[pj-1]) {
				t[pj] = t[pj-1]
				pj--
			}
			t[pj] = vi
		}
	pop:
		if len(stack) == 0 {
			break
		}
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		pl, pr, depth = f.pl, f.pr, f.depth
	}
	return t
}

// aheapsort is numpy's aheapsort on tosort (1-based positions inside).
func aheapsort(tosort []int, less func(a, b int) bool) {
	n := len(tosort)
	a := func(i int) *int { return &tosort[i-1] } // 1-based
	for l := n >> 1; l > 0; l-- {
		tmp := *a(l)
		i, j := l, l<<1
		for j <= n {
			if j < n && less(*a(j), *a(j + 1)) {
				j++
			}
			if less(tmp, *a(j)) {
				*a(i) = *a(j)
				i = j
				j += j
			} else {
				break
			}
		}
		*a(i) = tmp
	}
	for ; n > 1; n-- {
		tmp := *a(n)
		*a(n) = *a(1)
		i, j := 1, 2
		m := n - 1
		for j <= m {
			if j < m && less(*a(j), *a(j + 1)) {
				j++
			}
			if less(tmp, *a(j)) {
				*a(i) = *a(j)
				i = j
				j += j
			} else {
				break
			}
		}
		*a(i) = tmp
	}
}
