package ownership

// HasLabels reports whether every label of want is on the object's labels
// as it is. A child whose labels someone removed is drift like any field
// setpoint sets; without ManagedByLabel it has even left our caches, which
// then learn of it only from the API server (Claim, Live).
func HasLabels(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}
