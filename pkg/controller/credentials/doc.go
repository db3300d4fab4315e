// Package credentials holds the records both controllers keep on a
// generated password Secret: a requested rotation and its completion
// (EnsureRotated), and the mark and note of a Secret created again after
// it was lost.
package credentials
