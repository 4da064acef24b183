"""The vocabulary `memoryos.policies.commands` judges commands by: which programs, subcommands and
wrappers mean what, across shells (bash, zsh, PowerShell, cmd), language ecosystems, clouds and
databases. Data only; the logic that reads it is in `commands` and `commands_shell`.

Written from what each tool does, not from any corpus line: a family is named once (a test runner,
a deploy remote, a PowerShell verb) and every member of it counts.
"""

from __future__ import annotations

import re


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# -- test runners ------------------------------------------------------------------------------------

#: Programs that only run tests, in every ecosystem (Python, JS, Ruby, PHP, JVM, .NET, Go, shell, infra).
TEST_PROGRAMS = _set(
    "pytest py.test tox nox jest vitest mocha rspec phpunit ctest ava karma bats behave cucumber "
    "nosetests nose2 trial playwright cypress pest green ward robot pabot stestr testr tape tap uvu "
    "jasmine qunit testcafe nightwatch wdio codecept behat phpspec paratest kaocha busted prove "
    "gotestsum ginkgo richgo shellspec shunit2 bashunit newman gauge venom elm-test "
    "vstest.console vstest mstest nunit3-console nunit-console xunit.console test-storybook "
    "zope-testrunner testem japa lab cargo-nextest schemathesis"
)
#: Words that, as a tool's first subcommand, run its tests (`go test`, `cargo nextest run`,
#: `rebar3 eunit`, `dune runtest`, `sbt testOnly`, `lein midje`).
TEST_SUBCOMMANDS = _set(
    "test tests spec specs e2e unit integration runtest nextest eunit ct tarpaulin llvm-cov "
    "testonly test-only midje vstest xunit"
)

# -- builds ------------------------------------------------------------------------------------------

#: Programs that only build or compile (an exit 0 is a working build).
BUILD_PROGRAMS = _set(
    "tsc webpack rollup esbuild ninja sphinx-build meson msbuild xcodebuild gcc g++ cc clang clang++ "
    "javac rustc hugo csc vbc cl iscc makensis candle light pyinstaller nuitka cibuildwheel "
    "electron-builder rpmbuild dpkg-buildpackage debuild makepkg tsup ncc parcel scons jom nmake "
    "mingw32-make premake5 qmake b2 bjam earthly zola mdbook eleventy"
)
#: Subcommands that build, for any tool whose first word names an action (`go build`, `sam build`,
#: `packer build`, `mix compile`, `helm package`, `nix build`, `pants package`, `cdk synth`: CDKs
#: synthesize their templates).
BUILD_SUBCOMMANDS = _set("build compile assemble package dist uberjar bud synth")

# -- publishing ---------------------------------------------------------------------------------------

#: Tools that publish a package, an image or an extension when one of their first words says so,
#: wrapped or not: `yarn npm publish`, `pnpm --filter ui publish`, `dotnet nuget push`,
#: `pod trunk push`, `mix hex.publish`, `cargo workspaces publish`, `flutter pub publish`.
PUBLISHERS = _set(
    "npm yarn pnpm bun lerna changeset nx rush cargo dart flutter pub pod mix rebar3 dotnet nuget gem "
    "poetry flit pdm hatch uv rye twine maturin vsce ovsx jsr deno conan helm sbt lein gradle swift "
    "jfrog jf docker podman buildah nerdctl oras crane skopeo vcpkg choco"
)
PUBLISH_WORDS = _set("publish push upload")

# -- deploys ------------------------------------------------------------------------------------------

#: Hosting platforms whose deploy verb is a subcommand (`fly deploy`, `railway up`, `azd up`).
PLATFORMS = _set(
    "fly flyctl firebase netlify serverless sls cdk cdktf sam eb wrangler kamal cap mina dokku skaffold "
    "gcloud vercel railway heroku amplify zappa chalice copilot waypoint convox dep shipit azd swa "
    "garden devspace werf ecspresso lambroll apex deta render okteto architect koyeb now sst"
)
#: Programs that deploy whatever their arguments: running them is the deploy.
DEPLOY_PROGRAMS = _set("ansible-playbook kamal dokku mina cap capistrano surge ecs-deploy msdeploy")
#: Cloud Foundry and its look-alikes: `cf push`, `cf7 push`, `cf blue-green-deploy`, `kf push`.
CF_PROGRAMS = _set("cf cf6 cf7 cf8 kf")
CF_DEPLOYS = _set("push v3-push zero-downtime-push blue-green-deploy bg-deploy deploy restage")
#: Words in a git remote's name or URL that name a deploy target: `git push heroku main`,
#: `git push dokku-prod`, `git push https://app.scm.azurewebsites.net/app.git`.
DEPLOY_REMOTE_WORDS = _set(
    "heroku production prod live dokku deploy staging stage azure azurewebsites scalingo clever "
    "cleverapps pantheon wpengine flynn piku gigalixir aptible platform openshift caprover uat preprod "
    "appengine engineyard dreamhost coolify"
)
#: Orchestrators whose subcommand applies a desired state (`kubectl apply`, `oc rollout`).
ORCHESTRATORS = _set("kubectl oc microk8s")
ORCHESTRATOR_DEPLOYS = _set("apply rollout set replace create scale patch new-app start-build")
#: `nomad job run x.nomad`, `juju deploy`, `bosh -d x deploy`, `helmfile sync`, `kn service update`.
APPLY_PAIRS: frozenset[tuple[str, str]] = frozenset(
    {
        ("nomad", "run"),
        ("juju", "deploy"),
        ("bosh", "deploy"),
        ("helmfile", "apply"),
        ("helmfile", "sync"),
        ("terragrunt", "apply"),
        ("kn", "create"),
        ("kn", "update"),
        ("kustomize", "deploy"),
        ("func", "publish"),
        ("eas", "submit"),
        ("eas", "update"),
        ("fastlane", "deploy"),
        ("fastlane", "release"),
        ("fastlane", "deliver"),
        ("fastlane", "pilot"),
        ("fastlane", "supply"),
        ("zappa", "update"),
        ("skaffold", "run"),
    }
)

# -- databases ----------------------------------------------------------------------------------------

#: Database shells of every big vendor (PostgreSQL, MySQL, Oracle, SQL Server, Db2, SAP HANA,
#: Teradata, Vertica, Cassandra, Neo4j, MongoDB, Redis, Snowflake, Hive/Impala/Trino, kdb+'s `qcon`,
#: Memgraph, NebulaGraph, ...).
DB_PROGRAMS = _set(
    "psql pgcli mysql mariadb mycli mysqlsh mongosh mongo redis-cli valkey-cli keydb-cli sqlite3 litecli "
    "sqlcmd osql isql tsql bcp sqlcl mssql-cli ssms cqlsh clickhouse-client snowsql usql duckdb sqlplus rman "
    "db2 clpplus hdbsql bteq vsql cypher-shell cbq beeline impala-shell spark-sql trino presto "
    "presto-cli influx sqlline exaplus isql-fb dbaccess cockroach-sql nzsql ysqlsh gsql spanner-cli "
    "dbsqlcli hive mysqladmin mongostat mongotop tnsping qcon mgconsole nebula-console"
)
#: `clickhouse client`, `snow sql`, `cockroach sql`, `bq query`, `heroku pg:psql`, `rails dbconsole`.
DB_PAIRS: frozenset[tuple[str, str]] = frozenset(
    {
        ("clickhouse", "client"),
        ("snow", "sql"),
        ("cockroach", "sql"),
        ("bq", "query"),
        ("bq", "shell"),
        ("heroku", "pg:psql"),
        ("rails", "dbconsole"),
        ("rails", "db"),
        ("manage", "dbshell"),
        ("tsh", "db"),
        ("boundary", "connect"),
        ("supabase", "db"),
    }
)

# -- authentication and remote shells ------------------------------------------------------------------

#: Words that, among a tool's first subcommands, log in (`sf org login web`, `tsh login`,
#: `sfdx auth:web:login`, `oci session authenticate`, `op signin`).
LOGIN_WORDS = _set("login signin sign-in logon authenticate adduser")
#: A login word after these is an argument (`npm install login-helper`), not the action.
NOT_LOGIN_LEADS = _set("install i add remove uninstall info view show get describe search help logout")
#: Programs that are a login, a remote shell or a tunnel in themselves.
AUTH_PROGRAMS = _set(
    "ssh mosh sftp kinit plink putty kitty psftp autossh sshuttle et mstsc psexec winrs gimme-aws-creds "
    "okta-awscli okta-aws assume kubelogin openvpn openconnect xfreerdp wfreerdp rdesktop vncviewer "
    "ssh-copy-id"
)
#: Two-word logins that carry no login word: `cf auth`, `doctl auth init`, `aws configure sso`.
AUTH_PAIRS: frozenset[tuple[str, str]] = frozenset(
    {
        ("cf", "auth"),
        ("doctl", "auth init"),
        ("op", "account add"),  # 1Password: the first sign-in to an account
        ("aws", "configure sso"),
        ("aws", "sso login"),
        ("aws", "eks update-kubeconfig"),
        ("aws", "ssm start-session"),
        ("aws", "ec2-instance-connect ssh"),
        ("kubectl", "config use-context"),
        ("oc", "rsh"),
        ("tsh", "ssh"),
        ("az", "ssh vm"),
        ("bw", "unlock"),
        ("tailscale", "up"),
        ("tailscale", "ssh"),
        ("wg-quick", "up"),
        ("gcloud", "compute ssh"),
        ("vagrant", "ssh"),
    }
)
#: Programs whose `user@host` argument is written `-l user host` equivalently (so that a login
#: name at a host is not read as an e-mail address).
DASH_L_LOGINS = _set("ssh plink putty kitty psftp autossh")

# -- PowerShell ------------------------------------------------------------------------------------------

_VERB_NOUN = re.compile(r"^(?P<verb>[a-z]+)-(?P<noun>[a-z][a-z0-9]*)$")


def verb_noun(program: str) -> tuple[str, str] | None:
    """`Connect-AzAccount` is ("connect", "azaccount"); None for anything not shaped Verb-Noun."""
    match = _VERB_NOUN.match(program)
    return (match["verb"], match["noun"]) if match else None


#: PowerShell verbs that only look or move around (Get-ChildItem, Test-Path, Set-Location, ...).
PS_READ_VERBS = _set(
    "get select format out measure show find search compare test resolve read wait trace where sort "
    "group convertto convertfrom push pop clear write import"
)
#: Nouns a read verb can take that still only look around (`Push-Location`, `Write-Host`).
PS_READ_CMDLETS = _set(
    "set-location push-location pop-location write-host write-output write-verbose write-warning "
    "set-executionpolicy import-module new-item remove-item copy-item move-item rename-item set-content "
    "add-content start-sleep expand-archive compress-archive"
)
#: Cmdlets by kind, whole names first (they win over the verb rules below).
PS_CMDLETS: dict[str, str] = {
    "invoke-pester": "test",
    "invoke-gherkin": "test",
    "invoke-sqlcmd": "db_connect",
    "invoke-sqlcmd2": "db_connect",
    "invoke-dbaquery": "db_connect",
    "connect-dbainstance": "db_connect",
    "enter-pssession": "auth",
    "new-pssession": "auth",
    "set-azcontext": "auth",
    "add-azaccount": "auth",
    "add-azurermaccount": "auth",
    "set-awscredential": "auth",
    "initialize-awsdefaultconfiguration": "auth",
    "switch-azwebappslot": "deploy",
    "write-s3object": "deploy",
    "set-azstorageblobcontent": "deploy",
    "update-lmfunctioncode": "deploy",
    "invoke-msbuild": "build",
    "build-module": "build",
}
#: Verb rules: `Connect-*` and `Login-*` log in, `Publish-*` publishes (a module, a web app, a dacpac),
#: `New-*Deployment` deploys, `Build-*` builds.
PS_VERBS: dict[str, str] = {"connect": "auth", "login": "auth", "publish": "publish", "deploy": "deploy"}
#: Task runners of PowerShell: `Invoke-Build Test`, `Invoke-psake -taskList Deploy`.
PS_TASK_RUNNERS = _set("invoke-build invoke-psake")

# -- wrappers ---------------------------------------------------------------------------------------------

#: Programs that run the command written after `--` (or after their own options): `op run -- npm run
#: deploy`, `aws-vault exec prod -- terraform apply`, `dotenv -e .env -- make test`.
DASHDASH_RUNNERS = _set(
    "op doppler infisical aws-vault chamber dotenv dotenvx retry bear scl distrobox flox devbox teller "
    "sops with-contenv"
)
#: Programs that run the command after N positional words: `timeout 300 make test` (1),
#: `direnv exec . make` (after `exec` and its directory), `xvfb-run -a npm test` (0).
POSITIONAL_RUNNERS: dict[str, int] = {
    "timeout": 1,
    "xvfb-run": 0,
    "cross-env": 0,
    "env-cmd": 0,
    "nyc": 0,
    "c8": 0,
    "flock": 1,
    "ionice": 0,
    "taskset": 1,
    "stdbuf": 0,
    "unbuffer": 0,
    "chronic": 0,
    "setsid": 0,
    "wsl": 0,
    "winpty": 0,
    "uvx": 0,
    "start-server-and-test": 0,
}
#: `<runner> <sub> CMD...`: the command after a subcommand (`pipx run build`, `toolbox run make`,
#: `devbox run -- make`, `direnv exec DIR make`, `coverage run -m pytest`).
SUB_RUNNERS: dict[tuple[str, str], int] = {
    ("pipx", "run"): 0,
    ("toolbox", "run"): 0,
    ("devbox", "run"): 0,
    ("direnv", "exec"): 1,
    ("coverage", "run"): 0,
    ("pnpm", "exec"): 0,
    ("pnpm", "dlx"): 0,
    ("yarn", "exec"): 0,
    ("yarn", "dlx"): 0,
    ("npm", "exec"): 0,
    ("bun", "x"): 0,
    ("mise", "exec"): 0,
    ("mise", "x"): 0,
    ("asdf", "exec"): 0,
    ("rtx", "exec"): 0,
    ("devcontainer", "exec"): 0,
    ("ibmcloud", "cf"): -1,  # `ibmcloud cf push`: the rest is a cf command
    ("vagrant", "ssh"): -2,  # `-c CMD`: marks a remote command; handled as a login instead
}
#: Options of the wrappers above that take a value (`env-cmd -f .env`, `devcontainer exec
#: --workspace-folder .`, `timeout -s KILL 60`).
RUNNER_VALUED = _set(
    "-f --file -e --env --env-file -s --signal -k --kill-after --workspace-folder --config -p --project "
    "--profile -c --context --environment -n --name"
)
#: Container and pod runners: the command after the image, container or service (`docker compose run
#: --rm app make build`, `docker exec -it api npm test`, `kubectl exec pod -- pytest`).
CONTAINER_TOOLS = _set("docker podman nerdctl docker-compose podman-compose finch lima")
CONTAINER_VALUED = _set(
    "-v --volume -w --workdir -e --env --env-file --name -p --publish -u --user --network --net "
    "--entrypoint --mount --platform -l --label --add-host --cpus -m --memory --hostname -h --shm-size "
    "--ulimit --device --gpus --pull --restart --log-driver --security-opt --cap-add --cidfile --dns "
    "--tmpfs --volumes-from --link --ipc --pid --runtime -f --file --project-name --profile "
    "--project-directory --index -c --container --context -H --host -n --namespace"
)

#: Tools a JS package manager runs from node_modules/.bin when named first (`pnpm turbo build`,
#: `yarn tsc -b`, `bun vitest`): judged as themselves.
JS_BINARIES = (
    _set("turbo nx lerna changeset vite next nuxt astro ng tsc webpack rollup esbuild parcel tsup gatsby")
    | TEST_PROGRAMS
    | PLATFORMS
)
