// Package controller holds the domain rules both controllers share: their
// configuration, CNPG's CA certificates, and the rotation and recreation
// records of the password Secrets. (The names of setpoint's own roles and
// their DatabaseRoles are in naming.) The controllers live in cluster and
// database; what they run on in pipeline (the stage runner and status
// vocabulary), caches (the client-go kit) and ownership (the proof before
// every write).
package controller
