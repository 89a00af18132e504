package broker

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// ServerConfig configures an embedded NATS server with JetStream.
type ServerConfig struct {
	// Host and Port to listen on; Port -1 picks a random free port.
	Host string
	Port int
	// StoreDir holds JetStream's file storage.
	StoreDir string
	// User/Password or Token, when set, are required of every client.
	User, Password, Token string
	// TLS certificate and key (and CA, to require client certificates).
	CertFile, KeyFile, CAFile string
	// MaxStore bounds JetStream's file storage in bytes (0: server default).
	MaxStore int64
	// ConfigFile is a NATS server configuration file (accounts, users,
	// nkeys, operator/JWT resolver, TLS, ...). Its settings are the base;
	// JetStream is always on, and the fields above, when set, override it.
	ConfigFile string
	Logger     *slog.Logger
}

// DefaultMaxPayload is the message size limit (max_payload) of an embedded
// server whose config file sets none: the one of `schedfarm run`, and of
// `schedfarm server` without --nats-config. (nats-server's own default is
// 1 MiB.) A sweep's text travels in one message, so it bounds the sweeps
// that can be submitted.
const DefaultMaxPayload = 8 << 20

// StartServer starts an embedded NATS server with JetStream and waits until
// it accepts connections.
func StartServer(cfg ServerConfig) (*server.Server, error) {
	opts := &server.Options{}
	if cfg.ConfigFile != "" {
		var err error
		if opts, err = server.ProcessConfigFile(cfg.ConfigFile); err != nil {
			return nil, fmt.Errorf("nats server config %s: %w", cfg.ConfigFile, err)
		}
	}
	opts.JetStream = true
	opts.NoSigs = true
	if cfg.Host != "" || opts.Host == "" {
		opts.Host = cfg.Host
	}
	if opts.Host == "" {
		opts.Host = "127.0.0.1"
	}
	if cfg.Port != 0 || opts.Port == 0 {
		opts.Port = cfg.Port
	}
	if cfg.StoreDir != "" {
		opts.StoreDir = cfg.StoreDir
	}
	if cfg.MaxStore != 0 {
		opts.JetStreamMaxStore = cfg.MaxStore
	}
	if opts.MaxPayload == 0 {
		opts.MaxPayload = DefaultMaxPayload
	}
	if opts.JetStreamMaxMemory == 0 {
		opts.JetStreamMaxMemory = 256 << 20
	}
	if cfg.User != "" {
		opts.Username, opts.Password = cfg.User, cfg.Password
	}
	if cfg.Token != "" {
		opts.Authorization = cfg.Token
	}
	if cfg.CertFile != "" {
		tc, err := server.GenTLSConfig(&server.TLSConfigOpts{
			CertFile: cfg.CertFile, KeyFile: cfg.KeyFile, CaFile: cfg.CAFile, Verify: cfg.CAFile != "",
		})
		if err != nil {
			return nil, fmt.Errorf("nats server TLS: %w", err)
		}
		opts.TLSConfig = tc
		opts.TLS = true
		opts.TLSVerify = cfg.CAFile != ""
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("nats server: %w", err)
	}
	if cfg.Logger != nil {
		ns.SetLoggerV2(&slogAdapter{l: cfg.Logger}, false, false, false)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, fmt.Errorf("nats server on %s:%d not ready after 10s (run with --log-level debug for the server's own log)", opts.Host, opts.Port)
	}
	return ns, nil
}

// slogAdapter routes the server's log lines to slog (warnings and errors only
// reach the default level; notices are logged at debug).
type slogAdapter struct{ l *slog.Logger }

func (a *slogAdapter) Noticef(format string, v ...any) { a.l.Debug(fmt.Sprintf(format, v...)) }
func (a *slogAdapter) Warnf(format string, v ...any)   { a.l.Warn(fmt.Sprintf(format, v...)) }
func (a *slogAdapter) Fatalf(format string, v ...any)  { a.l.Error(fmt.Sprintf(format, v...)) }
func (a *slogAdapter) Errorf(format string, v ...any)  { a.l.Error(fmt.Sprintf(format, v...)) }
func (a *slogAdapter) Debugf(format string, v ...any)  { a.l.Debug(fmt.Sprintf(format, v...)) }
func (a *slogAdapter) Tracef(format string, v ...any)  {}
