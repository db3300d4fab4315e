// Package operator assembles setpoint: clients, informers, the cluster and
// database controllers, leader election, the event recorder, and the
// metrics and health endpoints. cmd/setpoint parses flags into a Config and
// calls Run.
package operator
