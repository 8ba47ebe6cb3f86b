// Command lambda is the DocsFunction of template.yaml: wiring only. Its files are in the deployment
// package beside the bootstrap, where build-DocsFunction puts them.
package main

import (
	"log/slog"
	"os"
	"path/filepath"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
	"github.com/reportingplatform/api/functions/docs"
	"github.com/reportingplatform/api/shared/config"
	"github.com/reportingplatform/api/shared/httpapi"
)

func main() {
	cfg, err := config.FromEnv()
	if err != nil {
		slog.Error("start-up failed", "error", err.Error())
		os.Exit(1)
	}
	exe, err := os.Executable()
	if err != nil {
		slog.Error("start-up failed", "error", err.Error())
		os.Exit(1)
	}
	h := docs.New(httpapi.NewLogger(os.Stdout, cfg.LogFormat), docs.Beside(filepath.Dir(exe)))
	h.AllowOrigins(cfg.CORSAllowedOrigins)
	lambda.Start(httpadapter.New(h).ProxyWithContext)
}
