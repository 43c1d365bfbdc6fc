#!/bin/sh
# The image's entry point: one image, one role per container.
#   api      the HTTP API (with an in-process worker unless WORKER_IN_PROCESS=false)  = npm start
#   worker   a render and generation worker                                           = npm run worker
#   migrate  applies the database migrations and exits                                = npm run migrate
#   cli …    the operator CLI (users, keys, projects)                                  = npm run cli -- …
# Each role runs the command of its package.json script, exec'd in place of npm: the Node
# process gets SIGTERM directly (graceful shutdown) and no npm process stays resident.
# Anything else is run as given (e.g. `bash`).
set -eu
role="${1:-api}"
case "$role" in
  api) script=start ;;
  worker | migrate | cli) script="$role" ;;
  *) exec "$@" ;;
esac
[ "$#" -gt 0 ] && shift
command="$(node -p 'require("./package.json").scripts[process.argv[1]]' "$script")"
exec sh -c "exec $command \"\$@\"" "$script" "$@"
