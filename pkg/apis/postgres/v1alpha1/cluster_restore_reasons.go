package v1alpha1

// ReasonRestoreFailed is the Ready reason of a PostgresCluster created by
// spec.restore whose restore CloudNativePG reports it cannot carry out
// (phase Failed; the message quotes CNPG's phase and reason). It stays so
// until the CNPG Cluster recovers, for instance once a missing ObjectStore
// exists; a restore with no backup to start from never does: delete the
// PostgresCluster and create it with a restore that can succeed.
const ReasonRestoreFailed = "RestoreFailed"
