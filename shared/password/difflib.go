package password

// quickRatio is Python's difflib.SequenceMatcher(a=a, b=b).quick_ratio(), the only part of difflib
// Django's UserAttributeSimilarityValidator uses: 2*M/T, where M counts the elements a and b have in
// common regardless of order (as a multiset intersection) and T is len(a)+len(b), or 1 when both are
// empty. Elements are code points, as in a Python str. quick_ratio ignores isjunk and autojunk.
func quickRatio(a, b string) float64 {
	avail := map[rune]int{}
	lb := 0
	for _, r := range b {
		avail[r]++
		lb++
	}
	matches, la := 0, 0
	for _, r := range a {
		if avail[r] > 0 {
			avail[r]--
			matches++
		}
		la++
	}
	if la+lb == 0 {
		return 1.0
	}
	return 2.0 * float64(matches) / float64(la+lb)
}
