package imagebuild

import (
	"flag"
	"strconv"
	"time"
)

// Bind binds o to command-line flags, for the image and release commands
// alike (the Makefile passes the same ones to both).
func (o *Options) Bind(fs *flag.FlagSet) {
	fs.StringVar(&o.Root, "root", "../..", "the operator module's directory")
	fs.StringVar(&o.Repository, "repository", "ghcr.io/setpoint-dev/setpoint", "image name without tag")
	fs.StringVar(&o.Version, "version", "", "version: the image tag and what the binary's --version prints")
	fs.StringVar(&o.Commit, "commit", "", "Git commit the image is built from")
	fs.Var((*unixTime)(&o.Created), "created", "commit time in Unix seconds (git log -1 --format=%ct)")
	fs.StringVar(&o.Source, "source", "https://github.com/setpoint-dev/setpoint", "source repository URL (an OCI label)")
}

// unixTime is a flag holding a time given in Unix seconds.
type unixTime time.Time

func (u *unixTime) String() string {
	if u == nil || time.Time(*u).IsZero() {
		return ""
	}
	return strconv.FormatInt(time.Time(*u).Unix(), 10)
}

func (u *unixTime) Set(s string) error {
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return err
	}
	*u = unixTime(time.Unix(sec, 0).UTC())
	return nil
}
