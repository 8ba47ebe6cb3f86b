package password

import "slices"

// This file ports the parts of Python's difflib.SequenceMatcher (CPython 3.x)
// that Django's UserAttributeSimilarityValidator relies on, over runes
// (Python str elements are code points). It is a line-by-line port, junk and
// "autojunk" heuristics included, so that ratios match Python exactly; the
// tests compare against values printed by python3.

// match is a matching block: a[i:i+size] == b[j:j+size]. It mirrors
// difflib.Match.
type match struct {
	i, j, size int
}

// sequenceMatcher mirrors difflib.SequenceMatcher(isjunk, a, b, autojunk).
type sequenceMatcher struct {
	a, b     []rune
	isJunk   func(rune) bool
	autoJunk bool

	b2j            map[rune][]int // b element -> increasing indices, minus junk and popular
	bJunk          map[rune]bool  // elements for which isJunk is true
	bPopular       map[rune]bool  // elements dropped by the autojunk heuristic
	fullBCount     map[rune]int   // lazily built by quickRatio
	matchingBlocks []match        // cached by getMatchingBlocks
}

// newSequenceMatcher is SequenceMatcher(isjunk, a, b, autojunk). isJunk may
// be nil, like Python's None.
func newSequenceMatcher(isJunk func(rune) bool, a, b string, autoJunk bool) *sequenceMatcher {
	m := &sequenceMatcher{a: []rune(a), b: []rune(b), isJunk: isJunk, autoJunk: autoJunk}
	m.chainB()
	return m
}

// chainB is SequenceMatcher.__chain_b: it indexes b and removes junk, and,
// when autojunk is on and b has at least 200 elements, the elements that
// make up more than 1% of b.
func (m *sequenceMatcher) chainB() {
	m.b2j = make(map[rune][]int)
	for i, elt := range m.b {
		m.b2j[elt] = append(m.b2j[elt], i)
	}
	m.bJunk = make(map[rune]bool)
	if m.isJunk != nil {
		for elt := range m.b2j {
			if m.isJunk(elt) {
				m.bJunk[elt] = true
			}
		}
		for elt := range m.bJunk {
			delete(m.b2j, elt)
		}
	}
	m.bPopular = make(map[rune]bool)
	n := len(m.b)
	if m.autoJunk && n >= 200 {
		ntest := n/100 + 1
		for elt, idxs := range m.b2j {
			if len(idxs) > ntest {
				m.bPopular[elt] = true
			}
		}
		for elt := range m.bPopular {
			delete(m.b2j, elt)
		}
	}
}

// findLongestMatch is SequenceMatcher.find_longest_match(alo, ahi, blo, bhi):
// the longest matching block in a[alo:ahi] and b[blo:bhi], earliest in a and
// then in b on ties, extended with adjacent junk as Python does.
func (m *sequenceMatcher) findLongestMatch(alo, ahi, blo, bhi int) match {
	a, b := m.a, m.b
	besti, bestj, bestSize := alo, blo, 0
	// j2len[j] is the length of the longest match ending at a[i-1], b[j].
	j2len := map[int]int{}
	for i := alo; i < ahi; i++ {
		newJ2len := map[int]int{}
		for _, j := range m.b2j[a[i]] {
			if j < blo {
				continue
			}
			if j >= bhi {
				break
			}
			k := j2len[j-1] + 1
			newJ2len[j] = k
			if k > bestSize {
				besti, bestj, bestSize = i-k+1, j-k+1, k
			}
		}
		j2len = newJ2len
	}
	// Extend with non-junk elements (popular ones included: they were only
	// left out of b2j), then with junk on both sides, exactly as difflib.
	for besti > alo && bestj > blo && !m.bJunk[b[bestj-1]] && a[besti-1] == b[bestj-1] {
		besti, bestj, bestSize = besti-1, bestj-1, bestSize+1
	}
	for besti+bestSize < ahi && bestj+bestSize < bhi && !m.bJunk[b[bestj+bestSize]] &&
		a[besti+bestSize] == b[bestj+bestSize] {
		bestSize++
	}
	for besti > alo && bestj > blo && m.bJunk[b[bestj-1]] && a[besti-1] == b[bestj-1] {
		besti, bestj, bestSize = besti-1, bestj-1, bestSize+1
	}
	for besti+bestSize < ahi && bestj+bestSize < bhi && m.bJunk[b[bestj+bestSize]] &&
		a[besti+bestSize] == b[bestj+bestSize] {
		bestSize++
	}
	return match{besti, bestj, bestSize}
}

// getMatchingBlocks is SequenceMatcher.get_matching_blocks: the
// non-overlapping, non-adjacent matching blocks in increasing order, ending
// with the sentinel {len(a), len(b), 0}.
func (m *sequenceMatcher) getMatchingBlocks() []match {
	if m.matchingBlocks != nil {
		return m.matchingBlocks
	}
	la, lb := len(m.a), len(m.b)
	type span struct{ alo, ahi, blo, bhi int }
	queue := []span{{0, la, 0, lb}}
	var blocks []match
	for len(queue) > 0 {
		q := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		x := m.findLongestMatch(q.alo, q.ahi, q.blo, q.bhi)
		if x.size == 0 {
			continue
		}
		blocks = append(blocks, x)
		if q.alo < x.i && q.blo < x.j {
			queue = append(queue, span{q.alo, x.i, q.blo, x.j})
		}
		if x.i+x.size < q.ahi && x.j+x.size < q.bhi {
			queue = append(queue, span{x.i + x.size, q.ahi, x.j + x.size, q.bhi})
		}
	}
	slices.SortFunc(blocks, func(p, q match) int {
		if p.i != q.i {
			return p.i - q.i
		}
		if p.j != q.j {
			return p.j - q.j
		}
		return p.size - q.size
	})
	// Collapse adjacent blocks.
	var i1, j1, k1 int
	nonAdjacent := make([]match, 0, len(blocks)+1)
	for _, x := range blocks {
		if i1+k1 == x.i && j1+k1 == x.j {
			k1 += x.size
			continue
		}
		if k1 != 0 {
			nonAdjacent = append(nonAdjacent, match{i1, j1, k1})
		}
		i1, j1, k1 = x.i, x.j, x.size
	}
	if k1 != 0 {
		nonAdjacent = append(nonAdjacent, match{i1, j1, k1})
	}
	m.matchingBlocks = append(nonAdjacent, match{la, lb, 0})
	return m.matchingBlocks
}

// ratio is SequenceMatcher.ratio: 2*M/T, where M is the number of matched
// elements and T the total number of elements in both sequences.
func (m *sequenceMatcher) ratio() float64 {
	matches := 0
	for _, x := range m.getMatchingBlocks() {
		matches += x.size
	}
	return calculateRatio(matches, len(m.a)+len(m.b))
}

// quickRatio is SequenceMatcher.quick_ratio: an upper bound on ratio that
// only counts common elements, ignoring order. It is what Django compares
// against max_similarity.
func (m *sequenceMatcher) quickRatio() float64 {
	if m.fullBCount == nil {
		m.fullBCount = make(map[rune]int, len(m.b))
		for _, elt := range m.b {
			m.fullBCount[elt]++
		}
	}
	avail := make(map[rune]int)
	matches := 0
	for _, elt := range m.a {
		numb, seen := avail[elt]
		if !seen {
			numb = m.fullBCount[elt]
		}
		avail[elt] = numb - 1
		if numb > 0 {
			matches++
		}
	}
	return calculateRatio(matches, len(m.a)+len(m.b))
}

// realQuickRatio is SequenceMatcher.real_quick_ratio: an upper bound on
// quickRatio from the lengths alone.
func (m *sequenceMatcher) realQuickRatio() float64 {
	la, lb := len(m.a), len(m.b)
	return calculateRatio(min(la, lb), la+lb)
}

// calculateRatio is difflib._calculate_ratio; two empty sequences are
// identical, hence 1.
func calculateRatio(matches, length int) float64 {
	if length == 0 {
		return 1.0
	}
	return 2.0 * float64(matches) / float64(length)
}
