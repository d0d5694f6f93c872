package mealy

// ShortestDifference explores a product of two systems breadth-first from
// start, trying inputs 0..inputs-1 in order at each product state. step
// returns the successor of k on input i, or differ=true when the two sides
// already answer i differently there. It returns the shortest word ending
// in such an input, or found=false when none is reachable; an error from
// step stops the search.
func ShortestDifference[K comparable](start K, inputs int, step func(k K, i int) (next K, differ bool, err error)) (w Word, found bool, err error) {
	type visit struct {
		from K
		in   int
	}
	seen := map[K]visit{start: {in: -1}}
	path := func(k K, last int) Word {
		rev := Word{last}
		for v := seen[k]; v.in >= 0; v = seen[k] {
			rev = append(rev, v.in)
			k = v.from
		}
		for l, r := 0, len(rev)-1; l < r; l, r = l+1, r-1 {
			rev[l], rev[r] = rev[r], rev[l]
		}
		return rev
	}
	queue := []K{start}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		for i := 0; i < inputs; i++ {
			next, differ, err := step(k, i)
			if err != nil {
				return nil, false, err
			}
			if differ {
				return path(k, i), true, nil
			}
			if _, dup := seen[next]; !dup {
				seen[next] = visit{from: k, in: i}
				queue = append(queue, next)
			}
		}
	}
	return nil, false, nil
}
