// Package pki makes and checks the certificates setpoint itself issues:
// each cluster's client CA, which signs every client certificate
// Postgres accepts, and the leaf certificates setpoint signs with it.
// ECDSA P-256 keys in "EC PRIVATE KEY" blocks, the form CloudNativePG
// parses (its certs.ParseECPrivateKey), so CNPG can sign with our CA too.
package pki
