package postgres

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"

	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// sslRequestCode opens TLS on a Postgres connection (the SSLRequest
// message of the frontend/backend protocol).
const sslRequestCode = 80877103

// AcceptedClientCAs asks the primary of a cluster which CAs it verifies
// client certificates with: the subjects its TLS CertificateRequest
// lists, which Postgres takes from ssl_ca_file. It is a TLS handshake
// only — no login, no password, no certificate sent — so it tells what
// Postgres has loaded, not what a Secret says it should.
func (c *Connector) AcceptedClientCAs(ctx context.Context, namespace, cluster string, serverCA []byte) ([][]byte, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(serverCA) {
		return nil, ErrNoCA
	}
	host := naming.Host(namespace, naming.RWService(cluster))
	to, err := c.hosts.Resolve(net.JoinHostPort(host, strconv.Itoa(Port)))
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", to)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", host, err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		if err := conn.SetDeadline(dl); err != nil {
			return nil, err
		}
	}
	req := make([]byte, 8)
	binary.BigEndian.PutUint32(req[0:4], 8)
	binary.BigEndian.PutUint32(req[4:8], sslRequestCode)
	if _, err := conn.Write(req); err != nil {
		return nil, fmt.Errorf("request TLS from %s: %w", host, err)
	}
	answer := make([]byte, 1)
	if _, err := io.ReadFull(conn, answer); err != nil {
		return nil, fmt.Errorf("request TLS from %s: %w", host, err)
	}
	if answer[0] != 'S' {
		return nil, fmt.Errorf("%s refused TLS", host)
	}
	var accepted [][]byte
	asked := false
	tc := tls.Client(conn, &tls.Config{
		ServerName: host, RootCAs: pool, MinVersion: tls.VersionTLS12,
		GetClientCertificate: func(cri *tls.CertificateRequestInfo) (*tls.Certificate, error) {
			asked, accepted = true, cri.AcceptableCAs
			return &tls.Certificate{}, nil // none: this is not a login
		},
	})
	if err := tc.HandshakeContext(ctx); err != nil {
		return nil, fmt.Errorf("TLS handshake with %s: %w", host, err)
	}
	if !asked {
		return nil, errors.New("the server asks for no client certificate")
	}
	return accepted, nil
}
