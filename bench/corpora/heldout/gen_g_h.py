#!/usr/bin/env python3
"""Generate activity_log_g.jsonl and activity_log_h.jsonl.

Hand-written events; every secret is a random value in the provider's format, made with a
seeded RNG (none is real). A seeded shuffle then mixes the categories as a real log would.
Running the script again gives the same files.
"""
import base64
import json
import random
import string
import uuid
from collections import Counter
from pathlib import Path
from urllib.parse import quote

R = random.Random(20261201)
UP, LO, DG = string.ascii_uppercase, string.ascii_lowercase, string.digits
AN = UP + LO + DG
HEX = "0123456789abcdef"
B64 = AN + "+/"
B64URL = AN + "-_"


def rs(n, alphabet=AN):
    return "".join(R.choice(alphabet) for _ in range(n))


def b64(nbytes):
    return base64.b64encode(bytes(R.getrandbits(8) for _ in range(nbytes))).decode()


def b64url(nbytes):
    return base64.urlsafe_b64encode(bytes(R.getrandbits(8) for _ in range(nbytes))).decode().rstrip("=")


def uid():
    return str(uuid.UUID(int=R.getrandbits(128), version=4))


def pw(n=16):
    # a human-ish strong password with some punctuation
    s = rs(n - 3, AN) + R.choice("!#%*+-.=?@^_~") + rs(1, DG) + R.choice(UP)
    return "".join(R.sample(s, len(s)))


def ghp():
    return "ghp_" + rs(36)


def glpat():
    return "glpat-" + rs(20, B64URL)


def akia():
    return "AKIA" + rs(16, UP + "234567")


def aws_secret():
    return rs(40, B64)


def azure_account_key():
    return b64(64)  # 88 chars ending in '=='


def ado_pat():
    return rs(52, LO + "234567")


def az_client_secret():
    return rs(3, AN) + "8Q~" + rs(34, AN + "_-.~")


def nuget_key():
    return "oy2" + rs(43, LO + DG)


def rubygems_key():
    return "rubygems_" + rs(48, HEX)


def hex_key():
    return rs(32, HEX)


def cio():
    return "cio" + rs(32)


def cf_token():
    return rs(40, B64URL)


def cf_global_key():
    return rs(37, HEX)


def acr_password():
    return rs(42, AN + "/+") + "+ACR" + rs(6, AN)


def dapi():
    return "dapi" + rs(32, HEX)


def jwt():
    header = base64.urlsafe_b64encode(json.dumps({"alg": "RS256", "kid": rs(43, B64URL)}).encode()).decode().rstrip("=")
    payload = base64.urlsafe_b64encode(json.dumps({
        "iss": "kubernetes/serviceaccount",
        "kubernetes.io/serviceaccount/namespace": "payments",
        "sub": "system:serviceaccount:payments:ci-deployer",
        "jti": uid()}).encode()).decode().rstrip("=")
    return f"{header}.{payload}.{b64url(256)}"


def apple_app_specific():
    return "-".join(rs(4, LO) for _ in range(4))


def expo_token():
    return rs(40, B64URL)


def firebase_token():
    return "1//0" + rs(2, LO) + rs(96, B64URL)


def sas_token():
    sig = quote(b64(32), safe="")
    return ("sv=2022-11-02&ss=bfqt&srt=sco&sp=rwdlacupiytfx&se=2027-06-30T17:00:00Z"
            f"&st=2026-11-30T09:00:00Z&spr=https&sig={sig}")


# ---------------------------------------------------------------------------
CAND = {"deploy": "capability", "publish": "capability", "auth": "capability",
        "db_connect": "capability", "ssh": "capability", "build": "procedure",
        "test": "procedure", "rule": "rule"}
NONCAND = {"failure", "unknown_exit", "trivial", "chatter", "credential"}


def c(command, exit_status, category, why, target=None):
    ev = {"type": "command", "command": command, "exit_status": exit_status}
    if target:
        ev["target"] = target
    return ev, category, why


def i(text, category, why):
    return {"type": "instruction", "text": text}, category, why


def row(pid, n, item):
    ev, cat, why = item
    assert cat in CAND or cat in NONCAND, cat
    return {"id": f"{pid}{n:04d}", "event": ev,
            "expect": {"candidate": cat in CAND, "kind": CAND.get(cat), "category": cat},
            "why": why}


# ======================= g: science / .NET+Azure / Ruby-Elixir-Go-Rust / IoT / netops =====
def population_g():
    U1, U2 = uid(), uid()
    E = []
    # --- deploy (14)
    E += [
        c("az deployment group create -g rg-claims-prod -f infra/main.bicep -p @infra/prod.parameters.json", 0, "deploy", "Bicep deployment to an Azure resource group", "prod"),
        c(r"New-AzResourceGroupDeployment -ResourceGroupName rg-web-staging -TemplateFile .\infra\main.bicep -TemplateParameterFile .\infra\staging.bicepparam", 0, "deploy", "PowerShell Az Bicep deployment", "staging"),
        c("func azure functionapp publish claims-func-prod --dotnet-isolated", 0, "deploy", "'publish' here deploys code to a live Function App"),
        c(r"az webapp deploy --resource-group rg-portal --name portal-prod --src-path .\publish.zip --type zip", 0, "deploy", "zip deploy to App Service", "prod"),
        c("bundle exec cap production deploy", 0, "deploy", "Capistrano deploy", "production"),
        c("make flash BOARD=gw-v2 PORT=/dev/ttyUSB1", 0, "deploy", "make target flashes firmware onto a device"),
        c("fly deploy --app ledger-elixir --strategy rolling", 0, "deploy", "Fly.io deploy of the Phoenix app"),
        c("cd infra/cloudflare && terraform init -input=false && terraform apply -auto-approve", 0, "deploy", "Cloudflare config applied with terraform (token from env, not in command)"),
        c("npx wrangler deploy --env production", 0, "deploy", "Cloudflare Worker deploy", "production"),
        c("ansible-playbook -i inventories/dc1/hosts.yml playbooks/push_acl.yml --limit edge_routers --vault-password-file ~/.ansible/vault_pass", 0, "deploy", "config pushed to network devices; vault password is a file reference"),
        c("pio run -e esp32dev -t upload --upload-port /dev/ttyUSB0", 0, "deploy", "firmware uploaded to device"),
        c("idf.py -p COM5 flash", 0, "deploy", "ESP-IDF flash from Windows"),
        c("Rscript -e 'rsconnect::deployApp(\"shiny/dashboard\", appName = \"qc-dashboard\", forceUpdate = TRUE)'", 0, "deploy", "Shiny app deployed to shinyapps/Connect"),
        c("sudo esptool.py --chip esp32s3 --port /dev/ttyACM0 --baud 921600 write_flash 0x0 build/merged-firmware.bin", 0, "deploy", "esptool write_flash = firmware flashed"),
    ]
    # --- publish (8)
    E += [
        c("goreleaser release --clean", 0, "publish", "GoReleaser publishes release artifacts (token from env)"),
        c("cargo publish -p fastq-rs", 0, "publish", "crate published to crates.io"),
        c("gem push pkg/ledger_client-2.3.0.gem", 0, "publish", "gem pushed to rubygems"),
        c("mix hex.publish --yes", 0, "publish", "Hex package published"),
        c("dotnet nuget push bin/Release/Contoso.Core.4.1.0.nupkg --source https://pkgs.dev.azure.com/contoso/_packaging/internal/nuget/v3/index.json --api-key az", 0, "publish", "'az' is the Azure Artifacts placeholder key, not a secret"),
        c("anaconda upload --user bioinfo-lab ~/miniforge3/conda-bld/noarch/seqtools-0.9.2-py_0.conda", 0, "publish", "conda package uploaded to anaconda.org"),
        c("Rscript -e \"devtools::submit_cran()\"", 0, "publish", "package submitted to CRAN"),
        c("apptainer push align_1.4.sif oras://ghcr.io/genolab/align:1.4", 0, "publish", "container image pushed to registry"),
    ]
    # --- auth (9)
    E += [
        c("az login", 0, "auth", "interactive Azure login"),
        c("az login --identity", 0, "auth", "managed identity login"),
        c("Connect-AzAccount -Tenant contoso.onmicrosoft.com", 0, "auth", "PowerShell Azure login"),
        c("az acr login --name contosoprodacr", 0, "auth", "container registry login"),
        c("cargo login", 0, "auth", "token typed at the prompt, not on the command line"),
        c("npx wrangler login", 0, "auth", "Cloudflare OAuth login"),
        c("pio account login", 0, "auth", "PlatformIO account login (prompts)"),
        c("echo \"$AZURE_DEVOPS_PAT\" | az devops login --organization https://dev.azure.com/contoso", 0, "auth", "PAT piped from an env var reference, no literal"),
        c("mix hex.user auth", 0, "auth", "Hex user auth (prompts)"),
    ]
    # --- db_connect (7)
    E += [
        c("sqlcmd -S tcp:contoso-sql.database.windows.net,1433 -d claims -G", 0, "db_connect", "Azure SQL with Entra ID auth"),
        c("psql \"host=pg-genomics.lab.internal dbname=variants user=analyst sslmode=verify-full\"", 0, "db_connect", "psql conninfo without password"),
        c("bin/rails dbconsole -e production", 0, "db_connect", "Rails DB console", "production"),
        c("Rscript -e 'con <- DBI::dbConnect(RPostgres::Postgres(), host = \"pg-genomics.lab.internal\", dbname = \"variants\"); print(DBI::dbListTables(con))'", 0, "db_connect", "R DBI connection, password from .pgpass"),
        c("Invoke-Sqlcmd -ServerInstance sqlprod02 -Database Billing -Query \"SELECT TOP 5 * FROM dbo.Invoices\"", 0, "db_connect", "PowerShell SQL Server query, integrated auth"),
        c("influx query 'from(bucket:\"telemetry\") |> range(start: -1h) |> count()' --host https://influx.iot.internal:8086 --org fleet", 0, "db_connect", "InfluxDB query (token from CLI config)"),
        c("mongosh \"mongodb://mongo01.lab.internal:27017/samples\" --eval \"db.runs.countDocuments()\"", 0, "db_connect", "mongosh without credentials in URI"),
    ]
    # --- ssh (6)
    E += [
        c("ssh -J bastion.corp.net netops@core-rtr-01.dc1", 0, "ssh", "ssh via jump host to a router"),
        c("ssh admin@10.20.0.1", 0, "ssh", "ssh to a switch management IP"),
        c("scp backups/core-sw-02-running.cfg netops@tftp01.dc1:/srv/tftp/", 0, "ssh", "scp to a host"),
        c("ssh jdoe@login.hpc.uni-example.edu", 0, "ssh", "ssh to HPC login node"),
        c("sftp -i ~/.ssh/id_ed25519 seqcore@sftp.sequencing-core.org", 0, "ssh", "sftp with key file reference"),
        c("ssh pi@raspberrypi.local", 0, "ssh", "ssh to IoT gateway"),
    ]
    # --- build (12)
    E += [
        c("dotnet build -c Release", 0, "build", "dotnet build"),
        c("dotnet publish src/Claims.Api -c Release -o out", 0, "build", "'dotnet publish' only writes deployable output locally; nothing uploaded"),
        c("az bicep build --file infra/main.bicep", 0, "build", "Bicep compiled to ARM JSON"),
        c("msbuild Contoso.sln /p:Configuration=Release /m", 0, "build", "MSBuild from cmd"),
        c("env RUSTFLAGS=\"-C target-cpu=native\" cargo build --release --target aarch64-unknown-linux-gnu", 0, "build", "cargo release build with env wrapper"),
        c("time go build -o bin/collector ./cmd/collector", 0, "build", "go build wrapped in time"),
        c("MIX_ENV=prod mix release", 0, "build", "Elixir release build"),
        c("idf.py build", 0, "build", "ESP-IDF firmware build"),
        c("nohup snakemake --cores 32 --use-conda --rerun-incomplete > logs/smk.log 2>&1", 0, "build", "Snakemake is a make-style workflow; run completed in the foreground"),
        c("conda build recipe/ -c conda-forge -c bioconda", 0, "build", "conda package build"),
        c("R CMD build pkg/varcallR", 0, "build", "R package tarball built"),
        c("west build -b nrf52840dk/nrf52840 app", 0, "build", "Zephyr build"),
    ]
    # --- test (11)
    E += [
        c("dotnet test --no-build --logger trx", 0, "test", "dotnet tests passed"),
        c("bundle exec rspec spec/", 0, "test", "rspec passed"),
        c("mix test --cover", 0, "test", "ExUnit passed"),
        c("go test -race ./...", 0, "test", "go tests passed"),
        c("cargo nextest run --workspace", 0, "test", "nextest passed"),
        c("pio test -e native", 0, "test", "PlatformIO unit tests passed"),
        c("R CMD check --as-cran varcallR_1.2.0.tar.gz", 0, "test", "R CMD check passed"),
        c("julia --project=. -e 'using Pkg; Pkg.test()'", 0, "test", "Julia package tests passed"),
        c("nextflow run nf-core/rnaseq -r 3.14.0 -profile test,docker --outdir results-test", 0, "test", "pipeline run with its test profile passed"),
        c(r"Invoke-Pester -Path .\tests -CI", 0, "test", "Pester tests passed"),
        c("pytest tests/network/test_acl_batfish.py -q", 0, "test", "batfish network ACL tests passed"),
    ]
    # --- rule (10; 6 non-English)
    E += [
        i("Always run `snakemake -n` before submitting anything to the cluster.", "rule", "standing 'always' rule"),
        i("Never flash production boards from a laptop; use the jig station in the lab.", "rule", "standing prohibition"),
        i("From now on, run `dotnet format --verify-no-changes` before every commit.", "rule", "'from now on' rule"),
        i("Don't push config to the core routers outside the maintenance window (Tue 02:00-04:00 UTC).", "rule", "standing prohibition with condition"),
        i("Bitte immer zuerst `cargo clippy -- -D warnings` laufen lassen, bevor du einen PR öffnest.", "rule", "German: always run clippy before opening a PR"),
        i("Nunca publiques en CRAN sin pasar antes R CMD check --as-cran.", "rule", "Spanish: never publish to CRAN without check"),
        i("本番のルーターには絶対に直接SSHしないでください。必ず踏み台サーバーを経由すること。", "rule", "Japanese: never ssh directly to prod routers; always via bastion"),
        i("以后所有的 Nextflow 运行都要加上 -resume 参数。", "rule", "Chinese: from now on all Nextflow runs use -resume"),
        i("Sempre use o ambiente conda bio-2026 para as análises de RNA-seq.", "rule", "Portuguese: always use the bio-2026 env"),
        i("금요일에는 절대 프로덕션에 배포하지 마세요.", "rule", "Korean: never deploy to production on Fridays"),
    ]
    # --- credential (24)
    E += [
        c(f"dotnet nuget push out/Contoso.Core.4.1.0.nupkg -k {nuget_key()} -s https://api.nuget.org/v3/index.json", 0, "credential", "NuGet API key on command line"),
        c(f"$env:NUGET_API_KEY=\"{nuget_key()}\"; dotnet nuget push *.nupkg --api-key $env:NUGET_API_KEY -s nuget.org", 0, "credential", "PowerShell env assignment of a NuGet key"),
        c(f"az login --service-principal -u {U1} -p {az_client_secret()} --tenant {U2}", 0, "credential", "Entra ID client secret"),
        c(f"set AZURE_CLIENT_SECRET={az_client_secret()}", 0, "credential", "cmd set of a client secret"),
        c(f"AZURE_DEVOPS_EXT_PAT={ado_pat()} az pipelines run --name claims-ci --org https://dev.azure.com/contoso --project Claims", 0, "credential", "Azure DevOps PAT"),
        c(f"az storage blob upload-batch -d '$web' -s ./site --account-name contosoweb --account-key {azure_account_key()}", 0, "credential", "storage account key (successful deploy, but key beats deploy)"),
        c(f"az storage blob list -c raw --account-name genolabdata --sas-token \"{sas_token()}\"", 0, "credential", "SAS token with signature"),
        c(f"export AZURE_STORAGE_CONNECTION_STRING=\"DefaultEndpointsProtocol=https;AccountName=genolabdata;AccountKey={azure_account_key()};EndpointSuffix=core.windows.net\"", 0, "credential", "storage connection string with account key"),
        c(f"GITHUB_TOKEN={ghp()} goreleaser release --clean", 0, "credential", "literal GitHub token before a publish"),
        c(f"cargo login {cio()}", 0, "credential", "crates.io token as argument"),
        c(f"GEM_HOST_API_KEY={rubygems_key()} gem push pkg/ledger_client-2.3.1.gem", 0, "credential", "RubyGems API key"),
        c(f"HEX_API_KEY={hex_key()} mix hex.publish --yes", 0, "credential", "Hex API key"),
        c(f"CLOUDFLARE_API_TOKEN={cf_token()} terraform apply -auto-approve", 0, "credential", "Cloudflare API token"),
        c(f"curl -s https://api.cloudflare.com/client/v4/zones -H \"X-Auth-Email: netops@example.net\" -H \"X-Auth-Key: {cf_global_key()}\"", 0, "credential", "Cloudflare global API key header"),
        c(f"ansible-playbook -i inventories/dc1 playbooks/push_acl.yml -e \"ansible_user=netops ansible_password={pw()}\"", 0, "credential", "device password as extra var"),
        c(f"python3 scripts/netmiko_backup.py --host 10.20.0.1 --username admin --password '{pw()}'", 0, "credential", "netmiko script with password"),
        c(f"echo '{pw(20)}' > ~/.ansible/vault_pass && chmod 600 ~/.ansible/vault_pass", 0, "credential", "vault password written in clear"),
        c(f"mosquitto_pub -h mqtt.iot.internal -u sensor-gw -P '{pw()}' -t fleet/ota -m start", 0, "credential", "MQTT password (-P is password for mosquitto)"),
        c(f"idf.py -D CONFIG_EXAMPLE_WIFI_PASSWORD=\"{pw(12)}\" build", 0, "credential", "Wi-Fi password baked into a build"),
        c(f"psql \"postgresql://analyst:{pw()}@pg-genomics.lab.internal:5432/variants\"", 2, "credential", "password in URL; failed, but credential wins"),
        i(f"Mi token de GitHub es {ghp()}; úsalo siempre para goreleaser.", "credential", "Spanish rule-shaped instruction carrying a token"),
        c(f"AWS_ACCESS_KEY_ID={akia()} AWS_SECRET_ACCESS_KEY={aws_secret()} snakemake --default-storage-provider s3 --default-storage-prefix s3://genolab-runs --cores 16", 0, "credential", "AWS key pair before a pipeline run"),
        c(f"docker login contosoprodacr.azurecr.io -u contosoprodacr -p '{acr_password()}'", 0, "credential", "ACR admin password"),
        c(f"git clone https://oauth2:{glpat()}@gitlab.lab.internal/genomics/pipelines.git", 0, "credential", "GitLab token in clone URL"),
    ]
    # --- failure (20)
    E += [
        c("dotnet test", 1, "failure", "tests failed"),
        c("dotnet build -c Release", 1, "failure", "compile error"),
        c("az deployment group create -g rg-claims-prod -f infra/main.bicep", 1, "failure", "deployment failed"),
        c("az login", 1, "failure", "login failed"),
        c("cargo test --workspace", 101, "failure", "test failures"),
        c("go test ./internal/...", 1, "failure", "go tests failed"),
        c("bundle exec rspec", 1, "failure", "rspec failures"),
        c("mix test", 2, "failure", "ExUnit failures"),
        c("goreleaser release --clean", 1, "failure", "release failed"),
        c("pio run -t upload", 1, "failure", "serial port busy"),
        c("idf.py -p /dev/ttyUSB0 flash", 2, "failure", "flash failed"),
        c("snakemake --cores 16 --use-conda", 1, "failure", "rule failed"),
        c("nextflow run main.nf -profile slurm -resume", 1, "failure", "pipeline error"),
        c("R CMD check --as-cran varcallR_1.2.0.tar.gz", 1, "failure", "check errors"),
        c("ssh -J bastion.corp.net netops@core-rtr-02.dc1", 255, "failure", "ssh connection failed"),
        c("terraform apply -auto-approve", 1, "failure", "Cloudflare apply error"),
        c("ansible-playbook -i inventories/dc1 playbooks/push_acl.yml", 2, "failure", "unreachable hosts"),
        c("julia --project -e 'using Pkg; Pkg.test()'", 1, "failure", "Julia tests failed"),
        c("cmd /c \"msbuild Contoso.sln /p:Configuration=Release\"", 1, "failure", "msbuild error"),
        c("pytest tests/", 5, "failure", "pytest exit 5 = no tests collected, not a passing run"),
    ]
    # --- unknown_exit (4)
    E += [
        c("az webapp deploy --name portal-prod --resource-group rg-portal --src-path publish.zip", None, "unknown_exit", "deploy, exit status not recorded"),
        c("snakemake --profile slurm --jobs 200", None, "unknown_exit", "session ended before the run finished"),
        c("cargo publish", None, "unknown_exit", "publish, exit unknown"),
        c("ssh netops@core-sw-03.dc1", None, "unknown_exit", "ssh, exit unknown"),
    ]
    # --- trivial (25)
    E += [
        c("dotnet --info", 0, "trivial", "inspection"),
        c("az account show -o table", 0, "trivial", "read-only identity check"),
        c("az group list --query \"[].name\" -o tsv", 0, "trivial", "listing"),
        c("Get-ChildItem -Recurse -Filter *.csproj", 0, "trivial", "PowerShell listing"),
        c("dir /s /b *.bicep", 0, "trivial", "cmd listing"),
        c("type appsettings.Development.json", 0, "trivial", "cmd cat"),
        c("conda env list", 0, "trivial", "listing"),
        c("conda activate bio-2026", 0, "trivial", "environment switch"),
        c("snakemake -n", 0, "trivial", "dry run"),
        c("squeue -u jdoe", 0, "trivial", "queue status"),
        c("nextflow log", 0, "trivial", "run history"),
        c("Rscript -e 'sessionInfo()'", 0, "trivial", "inspection"),
        c("julia --version", 0, "trivial", "version"),
        c("cargo tree -d", 0, "trivial", "dependency listing"),
        c("go env GOPATH", 0, "trivial", "inspection"),
        c("mix deps.tree", 0, "trivial", "dependency listing"),
        c("pio device list", 0, "trivial", "listing serial devices"),
        c("esptool.py --port /dev/ttyUSB0 chip_id", 0, "trivial", "reads chip id"),
        c("terraform plan -out tfplan", 0, "trivial", "plan only"),
        c("ansible-playbook -i inventories/dc1 playbooks/push_acl.yml --check --diff", 0, "trivial", "check mode = dry run"),
        c("ansible-inventory -i inventories/dc1 --graph", 0, "trivial", "inventory listing"),
        c("ping -c 3 10.20.0.1", 0, "trivial", "reachability check"),
        c("traceroute edge-rtr-01.dc1", 0, "trivial", "path check"),
        c("git log --oneline -n 20 | grep -i bicep", 0, "trivial", "read"),
        c("head -n 8 config/samples.tsv", 0, "trivial", "read"),
    ]
    # --- chatter (10; 5 non-English)
    E += [
        i("thanks, that fixed it", "chatter", "thanks"),
        i("Can you rerun the failing rule for sample S12?", "chatter", "one-off request"),
        i("What does --use-conda actually do?", "chatter", "question"),
        i("Never mind, I found the bug in the Bicep file.", "chatter", "contains 'never' but no order"),
        i("Just this once, skip the hardware-in-the-loop tests.", "chatter", "explicitly temporary"),
        i("Danke, sieht gut aus!", "chatter", "German thanks"),
        i("このエラーはどういう意味ですか？", "chatter", "Japanese question"),
        i("¿Puedes desplegar la función a staging ahora?", "chatter", "Spanish one-off request"),
        i("好的，谢谢！", "chatter", "Chinese ack"),
        i("Oggi compila il firmware per la scheda v2, per favore.", "chatter", "Italian one-off request for today"),
    ]
    return E


# ======================= h: data eng / k8s platform / games / mobile / DBAs ===============
def population_h():
    E = []
    # --- deploy (13)
    E += [
        c("helm upgrade --install payments charts/payments -n prod -f values/prod.yaml --atomic --timeout 10m", 0, "deploy", "helm release upgraded", "prod"),
        c("argocd app sync payments-prod --prune", 0, "deploy", "Argo CD sync"),
        c("flux reconcile kustomization apps --with-source", 0, "deploy", "Flux reconcile applies manifests"),
        c("kustomize build overlays/prod | kubectl apply -f -", 0, "deploy", "rendered and applied to cluster", "prod"),
        c("skaffold run -p staging", 0, "deploy", "skaffold build+deploy", "staging"),
        c("helmfile -e prod apply", 0, "deploy", "helmfile apply"),
        c("astro deploy --deployment-id clx8k2p0q000108l2", 0, "deploy", "Astronomer Airflow deploy"),
        c("gsutil -m rsync -r dags/ gs://europe-west1-etl-composer-bucket/dags/", 0, "deploy", "DAGs deployed to Cloud Composer bucket"),
        c("databricks bundle deploy -t prod", 0, "deploy", "Databricks asset bundle deploy", "prod"),
        c("flyway -configFiles=conf/prod.conf migrate", 0, "deploy", "schema migration applied (password in conf file, not command)"),
        c("liquibase update --changelog-file=db/changelog/db.changelog-master.yaml", 0, "deploy", "schema changes applied"),
        c("eas update --branch production --message \"fix checkout crash\"", 0, "deploy", "Expo OTA update shipped"),
        c("task deploy:argo-rollouts ENV=prod", 0, "deploy", "go-task deploy target"),
    ]
    # --- publish (8)
    E += [
        c("bundle exec fastlane ios beta", 0, "publish", "fastlane beta lane uploads to TestFlight"),
        c("fastlane supply --aab app/build/outputs/bundle/release/app-release.aab --track internal", 0, "publish", "Play Store upload"),
        c("eas submit -p ios --latest", 0, "publish", "App Store submission"),
        c(r"steamcmd +login ci_builder +run_app_build ..\scripts\app_build_1234560.vdf +quit", 0, "publish", "Steam build upload (cached login, no password)"),
        c("butler push build/windows studio/starfall:windows-beta --userversion 0.9.3", 0, "publish", "itch.io push"),
        c("helm package charts/payments && helm push payments-1.8.0.tgz oci://ghcr.io/acme/charts", 0, "publish", "chart pushed to OCI registry"),
        c("./gradlew publishReleaseBundle", 0, "publish", "Gradle Play Publisher upload"),
        c("firebase appdistribution:distribute app/build/outputs/apk/release/app-release.apk --app 1:123456789012:android:0a1b2c3d4e5f6a7b --groups qa", 0, "publish", "build distributed to testers"),
    ]
    # --- auth (9)
    E += [
        c("argocd login argocd.platform.acme.io --sso", 0, "auth", "Argo CD SSO login"),
        c("tsh login --proxy=teleport.acme.io --auth=okta", 0, "auth", "Teleport login"),
        c("tsh kube login prod-eu-1", 0, "auth", "Teleport kube credentials"),
        c("databricks auth login --host https://adb-1234567890123456.7.azuredatabricks.net", 0, "auth", "Databricks OAuth login"),
        c("eas login", 0, "auth", "Expo login (prompts)"),
        c("p4 login", 0, "auth", "Perforce login (prompts)"),
        c("helm registry login ghcr.io -u platform-bot --password-stdin < /run/secrets/ghcr_token", 0, "auth", "password read from a file, no literal"),
        c("oc login --web https://api.ocp.acme.io:6443", 0, "auth", "OpenShift web login"),
        c("gcloud auth application-default login", 0, "auth", "GCP ADC login"),
    ]
    # --- db_connect (10)
    E += [
        c("snowsql -c prod_etl -q \"select current_warehouse()\"", 0, "db_connect", "named connection; password in config"),
        c("bq query --use_legacy_sql=false 'SELECT COUNT(*) FROM analytics.events WHERE dt = CURRENT_DATE()'", 0, "db_connect", "BigQuery query ran"),
        c("sudo -u postgres psql -d orders -c \"SELECT pg_is_in_recovery();\"", 0, "db_connect", "local peer auth via sudo"),
        c("mysql --login-path=orders-prod -e \"SHOW PROCESSLIST\"", 0, "db_connect", "login-path; password in obfuscated file"),
        c("mongosh \"mongodb+srv://cluster0.k3x9p.mongodb.net/shop\" --username dbadmin", 0, "db_connect", "Atlas connection, password prompted"),
        c("redis-cli -h cache-prod.acme.internal -p 6380 --tls --askpass INFO replication", 0, "db_connect", "--askpass prompts; -p is the port"),
        c(r'sqlcmd -S sqlprod03\OLTP -E -Q "SELECT @@SERVERNAME"', 0, "db_connect", "SQL Server trusted connection"),
        c("pg_dump -h pg-orders-replica.acme.internal -U backup -Fc -f orders_2026-12-01.dump orders", 0, "db_connect", "connected to take a backup"),
        c("clickhouse-client --host ch01.acme.internal --secure --query \"SELECT version()\"", 0, "db_connect", "ClickHouse connection"),
        c("cqlsh cass-01.acme.internal 9042 --ssl", 0, "db_connect", "Cassandra connection"),
    ]
    # --- ssh (4)
    E += [
        c("ssh dba@pg-orders-primary.acme.internal", 0, "ssh", "ssh to DB host"),
        c("ssh -N -L 15432:pg-orders-primary:5432 bastion.acme.io", 0, "ssh", "ssh tunnel through bastion"),
        c("scp orders_2026-12-01.dump dba@backup01.acme.internal:/srv/backups/", 0, "ssh", "scp of backup"),
        c("ssh builder@mac-mini-ci-02.local 'cd ~/shop-ios && git pull --ff-only'", 0, "ssh", "remote command over ssh to build Mac"),
    ]
    # --- build (11)
    E += [
        c("dbt run --select marts.finance --target prod", 0, "build", "dbt run materializes models"),
        c("nohup dbt build -s state:modified+ --defer --state prod-artifacts/ > dbt.log 2>&1", 0, "build", "dbt build (foreground nohup)"),
        c("sbt clean assembly", 0, "build", "Spark job jar built"),
        c("skaffold build --file-output=tags.json", 0, "build", "images built only"),
        c(r'"C:\Program Files\Unity\Hub\Editor\2022.3.40f1\Editor\Unity.exe" -batchmode -quit -nographics -projectPath . -buildTarget Android -executeMethod BuildScripts.BuildAndroid -logFile -', 0, "build", "Unity batch build"),
        c(r"Engine\Build\BatchFiles\RunUAT.bat BuildCookRun -project=C:\p4\Starfall\Starfall.uproject -platform=Win64 -clientconfig=Shipping -build -cook -stage -pak -archive -archivedirectory=C:\builds", 0, "build", "Unreal BuildCookRun"),
        c("time ./gradlew :app:bundleRelease", 0, "build", "Android release bundle built"),
        c("xcodebuild -workspace Shop.xcworkspace -scheme Shop -configuration Release -archivePath build/Shop.xcarchive archive", 0, "build", "Xcode archive"),
        c("eas build --platform android --profile production --non-interactive", 0, "build", "EAS cloud build"),
        c("flutter build ipa --release", 0, "build", "Flutter iOS build"),
        c("just build-images", 0, "build", "just recipe builds images"),
    ]
    # --- test (11)
    E += [
        c("dbt test --select source:raw_stripe", 0, "test", "dbt tests passed"),
        c("airflow dags test etl_daily 2026-11-30", 0, "test", "DAG test run passed"),
        c("pytest tests/dags -q", 0, "test", "DAG unit tests passed"),
        c("helm test payments -n staging", 0, "test", "helm release tests passed"),
        c("conftest test rendered/ -p policy/", 0, "test", "policy tests passed"),
        c("Unity -batchmode -projectPath . -runTests -testPlatform PlayMode -testResults results.xml", 0, "test", "Unity PlayMode tests passed"),
        c("xcodebuild test -workspace Shop.xcworkspace -scheme ShopTests -destination 'platform=iOS Simulator,name=iPhone 16'", 0, "test", "iOS tests passed"),
        c("./gradlew testReleaseUnitTest connectedDebugAndroidTest", 0, "test", "Android tests passed"),
        c("maestro test .maestro/checkout_flow.yaml", 0, "test", "mobile UI flow test passed"),
        c("task test:integration", 0, "test", "go-task integration tests"),
        c("great_expectations checkpoint run orders_daily", 0, "test", "data-quality checkpoint passed"),
    ]
    # --- rule (10; 7 non-English)
    E += [
        i("Always tag Unity builds with the git SHA in the bundle version.", "rule", "standing 'always' rule"),
        i("Whenever you touch the Android signing config, bump versionCode too.", "rule", "'whenever X, do Y'"),
        i("In this team we never use kubectl edit on prod; change the manifests in git instead.", "rule", "standing convention"),
        i("Ne lance jamais dbt run --full-refresh sur la prod sans me prévenir.", "rule", "French: never full-refresh prod without telling me"),
        i("リリースビルドは必ずビルドマシンで作ってください。", "rule", "Japanese: release builds always on the build machine"),
        i("以後每次改 schema 都要先在 staging 跑 flyway migrate。", "rule", "Chinese (traditional): always migrate staging first"),
        i("앞으로 helm 배포할 때는 항상 --atomic 옵션을 붙여 주세요.", "rule", "Korean: from now on always use --atomic"),
        i("Никогда не запускай миграции на проде в пятницу.", "rule", "Russian: never run prod migrations on Friday"),
        i("Gebruik voortaan altijd de read-only replica voor analytische queries.", "rule", "Dutch: from now on always use the replica"),
        i("कभी भी प्रोडक्शन डेटाबेस पर DROP TABLE मत चलाना।", "rule", "Hindi: never run DROP TABLE on production"),
    ]
    # --- credential (24)
    E += [
        c(f"SNOWSQL_PWD='{pw()}' snowsql -a xy12345.eu-central-1 -u ETL_SVC -d ANALYTICS", 0, "credential", "Snowflake password env prefix"),
        c(f"DATABRICKS_TOKEN={dapi()} databricks bundle deploy -t prod", 0, "credential", "Databricks PAT before a deploy"),
        c(f"firebase deploy --only hosting --token \"{firebase_token()}\"", 0, "credential", "Firebase CI token"),
        c(f"spark-submit --master yarn --conf spark.hadoop.fs.s3a.access.key={akia()} --conf spark.hadoop.fs.s3a.secret.key={aws_secret()} jobs/daily_agg.py", 0, "credential", "S3 keys in Spark conf"),
        c(f"airflow connections add pg_orders --conn-uri 'postgresql://etl:{quote(pw(), safe='')}@pg-orders-replica.acme.internal:5432/orders'", 0, "credential", "connection URI with password"),
        c(f"env DBT_ENV_SECRET_PG_PASSWORD='{pw()}' dbt run --target prod", 0, "credential", "dbt secret env var with literal"),
        c(f"argocd login argocd.platform.acme.io --username admin --password '{pw()}'", 0, "credential", "Argo CD admin password"),
        c(f"GITHUB_TOKEN={ghp()} flux bootstrap github --owner=acme --repository=fleet-infra --path=clusters/prod-eu-1", 0, "credential", "GitHub token for flux bootstrap"),
        c(f"helm repo add internal https://charts.acme.io --username ci --password {pw()}", 0, "credential", "helm repo password"),
        c(f"kubectl --token={jwt()} get pods -n payments", 0, "credential", "service-account bearer token on a read command"),
        c(f"kubectl create secret generic orders-db -n payments --from-literal=password='{pw()}'", 0, "credential", "literal secret value"),
        c(f"steamcmd +login ci_builder {pw()} +run_app_build app_build_1234560.vdf +quit", 0, "credential", "Steam password in +login"),
        c(f"Unity -batchmode -quit -username build@studio.example -password '{pw()}' -projectPath . -executeMethod BuildScripts.BuildWindows", 0, "credential", "Unity account password"),
        c(f"FASTLANE_PASSWORD='{pw()}' bundle exec fastlane ios release", 0, "credential", "Apple ID password"),
        c(f"xcrun altool --upload-app -f Shop.ipa -t ios -u release@acme.io -p {apple_app_specific()}", 0, "credential", "app-specific password"),
        c(f"./gradlew assembleRelease -Pandroid.injected.signing.store.file=release.jks -Pandroid.injected.signing.store.password={(sp := pw())} -Pandroid.injected.signing.key.alias=upload -Pandroid.injected.signing.key.password={sp}", 0, "credential", "keystore passwords"),
        c(f"EXPO_TOKEN={expo_token()} eas build --platform ios --non-interactive", 0, "credential", "Expo access token"),
        c(f"mysql -h mysql-orders-prod.acme.internal -u dba -p'{pw()}' -e 'SHOW REPLICA STATUS\\G'", 0, "credential", "-p<pw> is a password"),
        c(f"mongosh \"mongodb+srv://dbadmin:{quote(pw(), safe='')}@cluster0.k3x9p.mongodb.net/shop\"", 0, "credential", "password in Mongo URI"),
        c(f"redis-cli -h cache-prod.acme.internal --tls -a '{pw()}' --no-auth-warning INFO", 0, "credential", "redis -a password"),
        c(f"sqlcmd -S sqlprod03 -U sa -P \"{pw()}\" -Q \"ALTER DATABASE Orders SET SINGLE_USER\"", 1, "credential", "sqlcmd -P password; failed, credential still wins"),
        c(f"psql -h pg-orders-primary.acme.internal -U postgres -c \"ALTER ROLE app_ro WITH PASSWORD '{pw()}'\"", 0, "credential", "new password inside SQL"),
        c(f"liquibase update --url=jdbc:postgresql://pg-orders-primary:5432/orders --username=migrator --password={pw()}", 0, "credential", "liquibase password flag"),
        i(f"本番DBのパスワードは {pw()} です。次回からこれを使ってください。", "credential", "Japanese instruction carrying a password"),
    ]
    # --- failure (20)
    E += [
        c("dbt run --select marts.finance", 1, "failure", "model error"),
        c("dbt test", 1, "failure", "tests failed"),
        c("spark-submit --master yarn --deploy-mode cluster jobs/daily_agg.py", 1, "failure", "job failed"),
        c("airflow dags test etl_daily 2026-11-30", 1, "failure", "task failed"),
        c("helm upgrade --install payments charts/payments -n prod --atomic", 1, "failure", "rolled back"),
        c("argocd app sync payments-prod", 20, "failure", "sync failed"),
        c("kubectl apply -f k8s/", 1, "failure", "apply error"),
        c("skaffold run -p prod", 1, "failure", "deploy failed"),
        c(r'& "C:\Program Files\Unity\Hub\Editor\2022.3.40f1\Editor\Unity.exe" -batchmode -quit -projectPath . -executeMethod BuildScripts.BuildAndroid', 1, "failure", "Unity build failed (PowerShell)"),
        c(r"Engine\Build\BatchFiles\RunUAT.bat BuildCookRun -project=C:\p4\Starfall\Starfall.uproject -platform=PS5 -cook -stage", 1, "failure", "cook failed"),
        c("steamcmd +login ci_builder +run_app_build app_build_1234560.vdf +quit", 5, "failure", "upload failed"),
        c("bundle exec fastlane ios beta", 1, "failure", "lane failed"),
        c("xcodebuild test -scheme ShopTests -destination 'platform=iOS Simulator,name=iPhone 16'", 65, "failure", "tests failed"),
        c("./gradlew :app:bundleRelease", 1, "failure", "build failed"),
        c("eas submit -p android --latest", 1, "failure", "submission rejected"),
        c("psql -h pg-orders-primary.acme.internal -U dba orders", 2, "failure", "connection refused"),
        c("mongosh \"mongodb://mongo-rs0.acme.internal:27017/shop?replicaSet=rs0\"", 1, "failure", "server selection timeout"),
        c("flyway migrate", 1, "failure", "migration checksum mismatch"),
        c("ssh dba@pg-orders-standby.acme.internal", 255, "failure", "host unreachable"),
        c("snowsql -c prod_etl -f sql/backfill.sql -o exit_on_error=true", 1, "failure", "SQL error"),
    ]
    # --- unknown_exit (4)
    E += [
        c("tilt up", None, "unknown_exit", "long-running dev loop, no exit status"),
        c("helm upgrade --install search charts/search -n prod", None, "unknown_exit", "deploy, exit status not recorded"),
        c("liquibase update", None, "unknown_exit", "migration, exit unknown"),
        c("fastlane android deploy", None, "unknown_exit", "publish lane, exit unknown"),
    ]
    # --- trivial (26)
    E += [
        c("kubectl describe pod payments-7d9f8c6b5-x2k4q -n payments", 0, "trivial", "inspection"),
        c("helm list -A", 0, "trivial", "listing"),
        c("argocd app get payments-prod", 0, "trivial", "status read"),
        c("flux get kustomizations -A", 0, "trivial", "status read"),
        c("kustomize build overlays/prod | less", 0, "trivial", "render and page = inspection"),
        c("kubectl logs deploy/payments -n payments --tail=200 | grep -i error", 0, "trivial", "log read"),
        c("k9s -n payments", 0, "trivial", "cluster viewer"),
        c("dbt ls --resource-type model", 0, "trivial", "listing"),
        c("airflow dags list", 0, "trivial", "listing"),
        c("databricks fs ls dbfs:/mnt/raw/", 0, "trivial", "listing"),
        c("bq ls --max_results=50 analytics", 0, "trivial", "listing"),
        c("flyway info", 0, "trivial", "migration status"),
        c("liquibase status --verbose", 0, "trivial", "status"),
        c("adb devices", 0, "trivial", "listing"),
        c("xcrun simctl list devices available", 0, "trivial", "listing"),
        c("fastlane lanes", 0, "trivial", "listing"),
        c("eas whoami", 0, "trivial", "identity check only"),
        c("p4 changes -m 10 //depot/Starfall/main/...", 0, "trivial", "history read"),
        c(r"Get-Content .\Saved\Logs\Starfall.log -Tail 50", 0, "trivial", "PowerShell log read"),
        c(r"dir Builds\Windows", 0, "trivial", "cmd listing"),
        c("cat dbt_project.yml", 0, "trivial", "read"),
        c("kubectl top nodes", 0, "trivial", "metrics read"),
        c("helm template payments charts/payments -f values/prod.yaml | grep image:", 0, "trivial", "local render + grep, nothing applied"),
        c("helm diff upgrade payments charts/payments -f values/prod.yaml", 0, "trivial", "diff only"),
        c("skaffold diagnose", 0, "trivial", "inspection"),
        c("git status && git diff --stat", 0, "trivial", "read"),
    ]
    # --- chatter (10; 5 non-English)
    E += [
        i("Ship the iOS build to TestFlight now, please.", "chatter", "one-off request"),
        i("How long does the Unreal cook usually take?", "chatter", "question"),
        i("I always forget the helm flags, honestly.", "chatter", "contains 'always' but no order"),
        i("Don't bother with the snapshot tests for this PR.", "chatter", "scoped to one PR, not standing"),
        i("Please restore last night's backup to the scratch DB.", "chatter", "one-off request"),
        i("ありがとう、助かりました！", "chatter", "Japanese thanks"),
        i("这个查询为什么这么慢？", "chatter", "Chinese question"),
        i("Peux-tu relancer le DAG d'hier ?", "chatter", "French one-off request"),
        i("Kannst du mir kurz erklären, was flux reconcile macht?", "chatter", "German question"),
        i("Vale, perfecto.", "chatter", "Spanish ack"),
    ]
    return E


def write(pid, items, path):
    R.shuffle(items)
    rows = [row(pid, n, it) for n, it in enumerate(items, 1)]
    with open(path, "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    return rows


if __name__ == "__main__":
    here = Path(__file__).resolve().parent
    for pid, fn in (("g", population_g), ("h", population_h)):
        rows = write(pid, fn(), here / f"activity_log_{pid}.jsonl")
        cnt = Counter(r["expect"]["category"] for r in rows)
        print(pid, len(rows), sum(r["expect"]["candidate"] for r in rows), dict(sorted(cnt.items())))
