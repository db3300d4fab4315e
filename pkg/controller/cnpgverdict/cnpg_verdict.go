package cnpgverdict

// CNPGRefused reports whether CloudNativePG answered a Database or
// DatabaseRole with a failure (status.applied false), whatever its
// observedGeneration: CNPG records the generation only on success
// (SetAsReady), so a failure — even the first — leaves the generation
// before it, and a check at the object's generation would wait for ever.
func CNPGRefused(applied *bool) bool { return applied != nil && !*applied }
