// Package apiref holds the test that the API reference (docs/reference/api.md,
// rendered by hack/update-apiref.sh) follows the API types' comments: a
// changed comment changes the page, so `make verify` fails until `make docs`.
package apiref
