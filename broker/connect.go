package broker

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// ConnConfig says how to reach a NATS server.
type ConnConfig struct {
	URL string
	// Name is the client name shown in the server's monitoring.
	Name string
	// CredsFile is a NATS credentials file (JWT + nkey seed).
	CredsFile string
	// NKeyFile is a file holding a user NKey seed (a server that lists NKey
	// users rather than an operator).
	NKeyFile string
	// User/Password or Token authenticate without a credentials file.
	User, Password, Token string
	// CAFile verifies the server; CertFile/KeyFile present a client certificate.
	CAFile, CertFile, KeyFile string
	Logger                    *slog.Logger
	// InProcess, when set, connects to an embedded server through an
	// in-memory pipe instead of a TCP socket (URL is then ignored): no
	// socket round trips between a worker and its own process's server.
	InProcess nats.InProcessConnProvider
}

// Connect connects to NATS and keeps reconnecting forever after a loss, so
// that a restarted server is picked up again without restarting the process.
func Connect(cfg ConnConfig) (*nats.Conn, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	opts := []nats.Option{
		nats.Name(cfg.Name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.ReconnectBufSize(64 << 20),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("nats disconnected", "err", err)
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) { log.Info("nats reconnected", "url", nc.ConnectedUrl()) }),
	}
	if cfg.InProcess != nil {
		opts = append(opts, nats.InProcessServer(cfg.InProcess))
	}
	if cfg.CredsFile != "" {
		opts = append(opts, nats.UserCredentials(cfg.CredsFile))
	}
	if cfg.NKeyFile != "" {
		opt, err := nats.NkeyOptionFromSeed(cfg.NKeyFile)
		if err != nil {
			return nil, fmt.Errorf("nkey seed file %s: %w", cfg.NKeyFile, err)
		}
		opts = append(opts, opt)
	}
	if cfg.User != "" {
		opts = append(opts, nats.UserInfo(cfg.User, cfg.Password))
	}
	if cfg.Token != "" {
		opts = append(opts, nats.Token(cfg.Token))
	}
	if cfg.CAFile != "" {
		opts = append(opts, nats.RootCAs(cfg.CAFile))
	}
	if cfg.CertFile != "" {
		opts = append(opts, nats.ClientCert(cfg.CertFile, cfg.KeyFile))
	}
	nc, err := nats.Connect(cfg.URL, opts...)
	if err != nil {
		hint := "is a server running? start one with `schedfarm server`, or use `schedfarm run` for an embedded one"
		if errors.Is(err, nats.ErrAuthorization) || strings.Contains(strings.ToLower(err.Error()), "authorization") {
			hint = "the server refused the credentials: check --token, --user/--password, --nkey or --creds (or SCHEDFARM_TOKEN, ...)"
		}
		return nil, fmt.Errorf("connect to NATS at %s: %w (%s)", cfg.URL, err, hint)
	}
	return nc, nil
}
