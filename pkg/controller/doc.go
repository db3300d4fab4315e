// Package controller holds what setpoint's controllers share: the informer
// factories and their caches, the labels that mark our objects, event
// routing from children to owners, and status helpers. The controllers
// themselves live in the cluster and database subpackages.
package controller
