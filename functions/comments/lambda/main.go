// Command lambda is the CommentsFunction of template.yaml: wiring only.
package main

import (
	"github.com/reportingplatform/api/functions/comments"
	"github.com/reportingplatform/api/shared/service"
)

func main() {
	env := service.MustLoad()
	env.Serve(comments.New(env.Store, env.Log, env.Now))
}
