// Package cnpgca remembers the CA certificates CloudNativePG publishes for
// each cluster (CACache), read directly since those Secrets are CNPG's, for
// the TLS-verified connections both controllers and the collector open.
package cnpgca
