// Package controller holds what setpoint's controllers share: the informer
// factories and their caches, the labels that mark our objects, event
// routing from children to owners, and the ownership protocol. The
// controllers live in the cluster and database subpackages; the runner
// both run their pipelines on, and the status vocabulary it writes, in
// pipeline.
package controller
