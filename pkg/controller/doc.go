// Package controller holds the configuration both controllers are built
// from (Config) and the backup gauges it carries. The controllers live in
// cluster and database; what they run on in pipeline (the stage runner and
// status vocabulary), informers (the client-go kit), cachelag (the record
// of our own writes a cache has not shown yet) and ownership (the proof
// before every write); what they share in cnpgca (CNPG's CA certificates),
// credentials (the rotation and recreation records of the password
// Secrets) and cnpgverdict (what CNPG's answer on a Database or
// DatabaseRole means, and the role retry). The names of setpoint's own
// roles and their DatabaseRoles are in naming.
package controller
