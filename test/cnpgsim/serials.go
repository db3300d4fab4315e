package cnpgsim

import "slices"

// The instances' serials (`<cluster>-<serial>`, the names of their Pods
// and PVCs). CNPG numbers them 1…N at first and never reuses one: the
// replicas it re-creates after a major upgrade (it deletes their PVCs)
// take the next free serials. The primary stays serial 1 on the stand-in.

// instanceSerials are the serials of n instances: 1…n unless a major
// upgrade renumbered them (and the count has not changed since).
func (i *instance) instanceSerials(n int) []int {
	if len(i.serials) == n {
		return slices.Clone(i.serials)
	}
	serials := make([]int, n)
	for k := range serials {
		serials[k] = k + 1
	}
	return serials
}

// newReplicaSerials renumbers the replicas of n instances after the
// highest serial used and returns their new serials.
func (i *instance) newReplicaSerials(n int) []int {
	cur := i.instanceSerials(n)
	if n < 2 {
		return nil
	}
	last := slices.Max(cur)
	next := []int{cur[0]}
	for range n - 1 {
		last++
		next = append(next, last)
	}
	i.serials = next
	return slices.Clone(next[1:])
}
