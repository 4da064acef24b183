#!/usr/bin/env python3
"""Generate activity_log_i.jsonl (held-out activity-log corpus i).

Hand-written event list for seven populations (Salesforce admins/devs, SAP BTP/HANA/ABAP,
WordPress agency, ROS 2 robotics, quant finance research, Terraform/Pulumi platform team,
Windows desktop support / Intune). Fake secrets are generated with a seeded RNG in the
providers' formats (none is real), then the list is shuffled with a seeded RNG and numbered
i0001... Standard library only, deterministic: `python3 gen_activity_i.py [OUTPUT_DIR]`.
"""
import json
import os
import random
import re
import string
import sys

rng = random.Random(20261202)
UP, LO, DG = string.ascii_uppercase, string.ascii_lowercase, string.digits
AN = UP + LO + DG
HEX = "0123456789abcdef"


def r(alphabet, n):
    return "".join(rng.choice(alphabet) for _ in range(n))


# ---- fake secrets in real formats -------------------------------------------------------------
SF_TOKEN = "00D" + r(AN, 12) + "!" + "AQ" + r(AN + ".", 94)            # Salesforce session id
SFDX_URL = "force://PlatformCLI::5Aep861" + r(AN + "._", 78) + "@acme-corp.my.salesforce.com"
SF_CONSUMER_SECRET = r(UP + DG, 64)                                      # connected-app secret
PULUMI = "pul-" + r(HEX, 40)
TFC = r(AN, 14) + ".atlasv1." + r(AN, 67)
ARM_SECRET = r(AN, 3) + "8Q~" + r(AN + "~_.-", 34)                      # Entra ID client secret
AWS_ID = "AKIA" + r(UP + "234567", 16)
AWS_SECRET = r(AN + "/+", 40)
HF = "hf_" + r(UP + LO, 34)
SLACK_HOOK = ("https://hooks.slack.com/services/T0" + r(UP + DG, 9) + "/B0" + r(UP + DG, 9) + "/"
              + r(AN, 24))
ANTHROPIC = "sk-ant-api03-" + r(AN + "-_", 93) + "AA"
GLPAT = "glpat-" + r(AN + "-_", 20)
GH_FINE = "github_pat_11" + r(UP + DG, 20) + "_" + r(AN, 59)
DOCKER_PAT = "dckr_pat_" + r(AN + "-_", 27)
NUGET = "oy2" + r(LO + DG, 43)
JFROG = "AKCp8" + r(AN, 68)
DATABENTO = "db-" + r(AN, 29)
ALPACA_KEY, ALPACA_SECRET = "PK" + r(UP + DG, 18), r(AN, 40)
POLYGON = r(AN, 32)
DD_KEY = r(HEX, 32)
WP_APP_PW = " ".join(r(AN, 4) for _ in range(6))
WP_AUTH_KEY = r(AN + "!@#%^&*()-_[]{}<>~+=,.;:/?|", 64)
SHOPIFY = "shpat_" + r(HEX, 32)
TWILIO_SID, TWILIO_TOKEN = "AC" + r(HEX, 32), r(HEX, 32)
DOPPLER = "dp.st.prd." + r(AN, 43)
VAULT = "hvs." + r(AN, 24)
EC_KEY = ("-----BEGIN EC PRIVATE KEY-----\\nMHcCAQEEI" + r(AN + "+/", 56) + "\\noAoGCCqGSM49AwEHoUQDQgAE"
          + r(AN + "+/", 40) + "\\n-----END EC PRIVATE KEY-----")
ROBOT_JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + r(AN + "-_", 64) + "." + r(AN + "-_", 43))
GCP_KEY = "AIza" + r(AN + "-_", 35)
GHP = "ghp_" + r(AN, 36)

rows = []


def C(cat, cmd, rc, why, target=None):
    ev = {"type": "command", "command": cmd, "exit_status": rc}
    if target:
        ev["target"] = target
    rows.append((cat, ev, why))


def I(cat, text, why):
    rows.append((cat, {"type": "instruction", "text": text}, why))


# =============================================================================================
# Salesforce admins / developers
# =============================================================================================
C("deploy", "sf project deploy start --source-dir force-app --target-org prod --test-level RunLocalTests", 0,
  "metadata deploy to the production org", "prod")
C("deploy", "sf project deploy quick --job-id 0Af8d00000XyZ12CAB --target-org prod", 0,
  "quick deploy of a validated job to production (a job id is not a secret)")
C("deploy", "sfdx force:source:deploy -p force-app/main/default/flows -u uat", 0,
  "legacy sfdx deploy of flows to the UAT sandbox")
C("test", "sf apex run test --target-org uat --test-level RunLocalTests --wait 30 --result-format human", 0,
  "apex tests passed in the sandbox")
C("test", "sf project deploy validate --source-dir force-app --target-org prod --test-level RunLocalTests", 0,
  "check-only deploy: runs the Apex tests against prod, changes nothing -> test")
C("test", "npm run test:unit -- --coverage", 0, "LWC jest tests (sfdx-lwc-jest) passed")
C("auth", "sf org login web --alias prod --instance-url https://acme-corp.my.salesforce.com", 0,
  "browser OAuth login to an org")
C("auth", "sf org login jwt --client-id 3MVG9fe4g9fhX0E5Kj8Wk2Lq --jwt-key-file ~/.sf/server.key "
          "--username ci-bot@acme-corp.com --alias ci-prod", 0,
  "JWT bearer login; key is referenced by path, consumer key is not secret")
C("db_connect", "sf data query --query \"SELECT Id, Name FROM Account WHERE CreatedDate = TODAY\" --target-org prod", 0,
  "SOQL query against prod data proves data access")
C("build", "sf package version create --package AcmeCore --installation-key-bypass --wait 20 --code-coverage", 0,
  "builds an unlocked package version (not yet released)")
C("publish", "sf package version promote --package AcmeCore@2.4.0-3 --no-prompt", 0,
  "promotes a package version to released")
C("trivial", "sf org list --all", 0, "listing orgs")
C("trivial", "sf org display --target-org uat", 0, "shows org info (the command line itself has no secret)")
C("trivial", "sf project retrieve preview --target-org uat", 0, "preview, read only")
C("trivial", "code force-app/main/default/classes/InvoiceService.cls", 0, "open in editor")
C("failure", "sf project deploy start --source-dir force-app --target-org prod", 1,
  "deploy failed: component errors")
C("failure", "sf apex run test --target-org uat --class-names InvoiceServiceTest --wait 10", 100,
  "apex test failures")
C("unknown_exit", "sf project deploy start --manifest manifest/package.xml --target-org staging --async", None,
  "async deploy, result never reported")
C("credential", f"sf org login sfdx-url --sfdx-url-file <(echo '{SFDX_URL}') --alias prod", 0,
  "sfdx auth URL contains a refresh token")
C("credential", f"sf org login access-token --instance-url https://acme-corp.my.salesforce.com --no-prompt "
                f"<<< '{SF_TOKEN}'", 0, "Salesforce session id/access token literal")
C("credential", f"export SF_ACCESS_TOKEN='{SF_TOKEN}' && sf project deploy start -o prod", 0,
  "access token in env, successful deploy -> still credential")
C("credential", f"curl -X POST https://login.salesforce.com/services/oauth2/token -d grant_type=client_credentials "
                f"-d client_id=3MVG9fe4g9fhX0E5Kj8Wk2Lq -d client_secret={SF_CONSUMER_SECRET}", 0,
  "connected app client secret")

# =============================================================================================
# SAP (BTP Cloud Foundry, HANA, ABAP)
# =============================================================================================
C("deploy", "cf deploy mta_archives/sales_portal_1.3.0.mtar -f", 0, "MTA deploy to SAP BTP Cloud Foundry")
C("deploy", "cf push approvals-srv -f manifest.yml", 0, "cf push an app")
C("build", "mbt build -p cf -t mta_archives", 0, "builds the MTA archive")
C("build", "npx cds build --production", 0, "CAP build")
C("test", "npx jest test/ --runInBand", 0, "CAP service tests passed")
C("auth", "cf login -a https://api.cf.eu10.hana.ondemand.com --sso", 0, "SSO login (passcode prompt)")
C("auth", "btp login --url https://cpcli.cf.eu10.hana.ondemand.com --subdomain acme-global --sso", 0,
  "BTP CLI SSO login")
C("db_connect", "hdbsql -n hana-prod.corp.local:30015 -U BACKUPOP \"SELECT * FROM M_BACKUP_CATALOG LIMIT 5\"", 0,
  "HANA via a user-store key (no secret on the line)")
C("db_connect", "hdbsql -U DEVKEY -d HXE \"SELECT 1 FROM DUMMY\"", 0,
  "HANA query; -U is a hdbuserstore key name, not a user or password")
C("deploy", "cds deploy --to hana:sales-hdi", 0, "deploys the CAP model to an HDI container")
C("ssh", "cf ssh approvals-srv", 0, "ssh into a CF app container")
C("trivial", "cf apps", 0, "listing apps")
C("trivial", "cf target -o acme -s dev", 0, "selects org/space, nothing proven beyond a prior login")
C("trivial", "cds watch", None, "local dev server, no exit code and not a candidate anyway")
C("failure", "cf push approvals-srv -f manifest.yml", 1, "staging failed")
C("failure", "mbt build -p cf", 1, "build failed: missing module")
C("failure", "hdbsql -n hana-qa.corp.local:30015 -U QAKEY \"SELECT 1 FROM DUMMY\"", 10,
  "authentication failed")
C("credential", "cf login -a https://api.cf.us10.hana.ondemand.com -u deploy-bot@acme-corp.com -p 'Bt9!stK2026#q'", 0,
  "CF password on the line")
C("credential", "hdbuserstore SET BACKUPOP hana-prod.corp.local:30015 BACKUP_OPERATOR 'Hana#Backup2026'", 0,
  "password stored into the user store, visible in the command")
C("credential", "hdbsql -n hana-prod.corp.local:30015 -u SYSTEM -p Manager26x -d SYSTEMDB \"SELECT * FROM M_DATABASES\"", 0,
  "HANA password with -p")
C("unknown_exit", "cf deploy mta_archives/sales_portal_1.3.1.mtar --strategy blue-green", None,
  "blue-green deploy, exit not recorded")

# =============================================================================================
# WordPress agency (wp-cli, Composer, WP Engine / Kinsta, Deployer)
# =============================================================================================
C("deploy", "git push wpengine main", 0, "WP Engine git push deploys the site")
C("deploy", "vendor/bin/dep deploy production", 0, "Deployer deploy")
C("deploy", "rsync -avz --delete wp-content/themes/harbour/ harbour@35.214.10.7:public/wp-content/themes/harbour/", 0,
  "rsync theme to the live host")
C("deploy", "wp @production plugin update --all", 0,
  "updates plugins on the live site (changes production) -> deploy")
C("publish", "svn ci -m \"Tagging version 3.2.0\" --username harbourdigital", 0,
  "commit to plugins.svn.wordpress.org releases the plugin to the directory")
C("build", "composer install --no-dev -o && npm ci && npm run build", 0, "theme build")
C("test", "vendor/bin/phpunit --testsuite integration", 0, "PHPUnit passed")
C("test", "npx playwright test --project=chromium", 0, "e2e tests passed")
C("ssh", "ssh harbour@35.214.10.7 -p 18765", 0, "ssh to the host (-p is the port)")
C("ssh", "ssh harbourdigital@harbourdigital.ssh.wpengine.net", 0, "WP Engine SSH gateway")
C("db_connect", "wp @staging db export - | gzip > staging-$(date +%F).sql.gz", 0, "dumps the staging DB")
C("db_connect", "wp db query \"SELECT option_value FROM wp_options WHERE option_name='siteurl'\"", 0, "SQL query")
C("trivial", "wp @production plugin list --status=active", 0, "read")
C("trivial", "wp search-replace 'https://staging.harbour.dev' 'https://harbour.co.uk' --dry-run", 0, "dry run")
C("trivial", "wp cache flush", 0, "cache flush, not a capability")
C("trivial", "tail -f wp-content/debug.log", None, "watching a log")
C("failure", "git push wpengine main", 1, "push rejected")
C("failure", "vendor/bin/phpunit", 2, "tests errored")
C("failure", "wp @production core update", 1, "update failed: permissions")
C("credential", "wp config set DB_PASSWORD 'hX7#pLm2Qz9!harbour'", 0, "DB password written into wp-config")
C("credential", f"curl -u 'editor-bot:{WP_APP_PW}' https://harbour.co.uk/wp-json/wp/v2/posts?status=draft", 0,
  "WordPress application password in basic auth")
C("credential", "wp user create ci-editor ci@harbour.dev --role=editor --user_pass='Quay!side2026'", 0,
  "user password on the line")
C("credential", f"wp config set AUTH_KEY '{WP_AUTH_KEY}'", 0, "WordPress salt/secret key")
C("credential", "mysql -u harbour_wp -p'Wp#Harb0ur!' -h 127.0.0.1 harbour_wp < dump.sql", 0, "mysql -p'pw'")
C("credential", f"SHOPIFY_CLI_THEME_TOKEN={SHOPIFY} shopify theme push --store harbour-shop --live", 0,
  "Shopify Admin API token on a successful publish")

# =============================================================================================
# ROS 2 robotics
# =============================================================================================
C("build", "colcon build --symlink-install --packages-up-to amr_navigation", 0, "colcon build")
C("build", "cd ~/ros2_ws && source /opt/ros/humble/setup.bash && colcon build --cmake-args -DCMAKE_BUILD_TYPE=Release", 0,
  "chain ending in colcon build")
C("test", "colcon test --packages-select amr_navigation && colcon test-result --verbose", 0, "colcon tests passed")
C("test", "launch_test src/amr_bringup/test/test_lidar_driver.launch.py", 0, "launch test passed")
C("deploy", "rsync -a install/ robot@amr-03.fleet.lan:/opt/amr/install/ && ssh robot@amr-03.fleet.lan sudo systemctl restart amr-stack", 0,
  "pushes the build to a robot and restarts the stack")
C("deploy", "ansible-playbook -i fleet.ini roll-out.yml --limit warehouse-b", 0, "fleet roll-out of new software")
C("publish", "bloom-release --rosdistro humble --track humble amr_msgs --yes", 0, "release to the ROS buildfarm")
C("publish", "docker buildx build --platform linux/arm64 -t ghcr.io/acme-robotics/nav:1.8.2 --push .", 0,
  "multi-arch image pushed")
C("ssh", "ssh ubuntu@turtlebot4-07.local", 0, "ssh to a robot")
C("ssh", "scp maps/warehouse_b.pgm maps/warehouse_b.yaml robot@amr-05.fleet.lan:~/maps/", 0, "scp to robot")
C("trivial", "ros2 topic list", 0, "read")
C("trivial", "ros2 topic echo /odom --once", 0, "read")
C("trivial", "ros2 node info /controller_server", 0, "read")
C("trivial", "rviz2 -d config/nav.rviz", None, "visualisation")
C("trivial", "vcs import src < amr.repos", 0, "checks out source repos")
C("failure", "colcon build --packages-select amr_perception", 1, "compile error")
C("failure", "colcon test-result --verbose", 1, "test failures reported")
C("failure", "ssh robot@amr-09.fleet.lan", 255, "host unreachable")
C("unknown_exit", "ansible-playbook -i fleet.ini roll-out.yml --limit warehouse-a", None,
  "roll-out interrupted, exit unknown")
C("credential", f"git clone https://oauth2:{GLPAT}@gitlab.acme-robotics.com/nav/amr_navigation.git", 0,
  "GitLab token in clone URL")
C("credential", f"echo '{DOCKER_PAT}' | docker login -u acmerobotics --password-stdin", 0,
  "literal Docker Hub PAT piped to login")
C("credential", f"curl -H 'Authorization: Bearer {ROBOT_JWT}' http://amr-03.fleet.lan:8080/api/mission", 0,
  "JWT bearer token to the robot API")
C("credential", f"HF_TOKEN={HF} python scripts/download_model.py --repo acme/grasp-net", 0, "Hugging Face token")

# =============================================================================================
# Quant finance research
# =============================================================================================
C("test", "pytest tests/backtest -q -n 8", 0, "backtest tests passed")
C("test", "ctest --test-dir build --output-on-failure", 0, "C++ pricing library tests passed")
C("build", "cmake --build build --target pricing_engine -j 16", 0, "C++ build")
C("build", "python -m build --wheel", 0, "wheel build")
C("publish", "twine upload --repository quant-internal dist/alphalib-0.9.4-py3-none-any.whl", 0,
  "upload to the internal index (credentials in ~/.pypirc)")
C("publish", "docker push registry.quant.internal/research/pricer:2.1.0", 0, "image push")
C("deploy", "kubectl --context research-prod rollout restart deployment/signal-api && kubectl rollout status deployment/signal-api", 0,
  "rollout of the signal service")
C("db_connect", "psql service=tickdb -c \"SELECT count(*) FROM trades WHERE ts > now() - interval '1 day'\"", 0,
  "TimescaleDB via pg_service.conf")
C("db_connect", "qcon kdb-hdb01.quant.internal:5012", 0, "kdb+ console to the HDB")
C("auth", "kinit jdoe@QUANT.CORP", 0, "Kerberos ticket (password prompted)")
C("auth", "aws sso login --profile research", 0, "AWS SSO login")
C("ssh", "ssh -J bastion.quant.internal quant@colo-ny4-01", 0, "ssh through a jump host")
C("trivial", "conda activate research-py311", 0, "env activation")
C("trivial", "jupyter lab --no-browser --port 8890", None, "notebook server")
C("trivial", "klist", 0, "lists Kerberos tickets")
C("trivial", "head -n 20 data/fx_eurusd_2026.parquet.meta", 0, "read")
C("failure", "pytest tests/backtest -q", 1, "test failures")
C("failure", "qcon kdb-rdb02.quant.internal:5011", 1, "connection refused")
C("failure", "twine upload --repository quant-internal dist/*", 1, "upload rejected: version exists")
C("credential", f"ALPACA_API_KEY_ID={ALPACA_KEY} ALPACA_API_SECRET_KEY={ALPACA_SECRET} python live/paper_trade.py", 0,
  "broker API key and secret")
C("credential", f"DATABENTO_API_KEY={DATABENTO} python fetch_mbo.py --dataset XNAS.ITCH --date 2026-11-27", 0,
  "market data API key")
C("credential", f"curl \"https://api.polygon.io/v2/aggs/ticker/AAPL/range/1/day/2026-01-01/2026-11-30?apiKey={POLYGON}\"", 0,
  "API key in query string")
C("credential", "q <<< 'h:hopen `:kdb-hdb01.quant.internal:5012:jdoe:Kdb!Pass2026; h\"count trade\"'", 0,
  "kdb+ user:password in the hopen handle")
C("credential", f"ANTHROPIC_API_KEY={ANTHROPIC} python research/summarise_filings.py", 0, "LLM API key")

# =============================================================================================
# Terraform / Pulumi platform team
# =============================================================================================
C("deploy", "pulumi up --yes --stack acme/platform/prod", 0, "Pulumi apply to prod")
C("deploy", "terragrunt run-all apply --terragrunt-non-interactive --terragrunt-working-dir live/prod/eu-west-1", 0,
  "terragrunt apply")
C("deploy", "cd envs/staging && terraform init -input=false && terraform apply -input=false -auto-approve tfplan", 0,
  "chain ending in terraform apply")
C("deploy", "terraform -chdir=stacks/network apply -auto-approve -var-file=prod.tfvars", 0, "terraform apply")
C("test", "terraform test -filter=tests/vpc.tftest.hcl", 0, "terraform native tests passed")
C("test", "go test ./test/ -run TestEksCluster -timeout 60m", 0, "terratest passed")
C("build", "npx cdktf synth", 0, "CDKTF synthesises the configuration")
C("publish", "cd constructs/acme-vpc && npm publish --access public", 0,
  "publishes the team's CDKTF construct library to npm (token in ~/.npmrc, not on the line)")
C("auth", "terraform login app.terraform.io", 0, "interactive TFC login (token stored by the CLI)")
C("auth", "pulumi login s3://acme-pulumi-state?region=eu-west-1", 0, "Pulumi self-managed backend login")
C("auth", "az login --service-principal --username 4a1f6c0e-1b2d-4e8f-9a7b-3c5d2e1f0a9b --tenant acme.onmicrosoft.com "
          "--federated-token \"$(cat $AZURE_FEDERATED_TOKEN_FILE)\"", 0,
  "workload identity login; the token is read from a file, not on the line")
C("trivial", "pulumi preview --stack acme/platform/prod --diff", 0, "preview only")
C("trivial", "terragrunt run-all plan", 0, "plan only")
C("trivial", "terraform state list | grep aws_iam_role", 0, "read")
C("trivial", "terraform fmt -check -recursive", 0, "formatting check, read only")
C("trivial", "pulumi stack output --stack acme/platform/prod", 0, "read")
C("failure", "pulumi up --yes --stack acme/platform/staging", 255, "update failed")
C("failure", "terraform apply -auto-approve", 1, "apply error: quota exceeded")
C("failure", "go test ./test/ -run TestVpc", 1, "terratest failed")
C("unknown_exit", "terragrunt run-all apply --terragrunt-non-interactive", None, "CI job cancelled, no exit")
C("credential", f"PULUMI_ACCESS_TOKEN={PULUMI} pulumi up --yes --stack acme/platform/dev", 0,
  "Pulumi token on a successful deploy")
C("credential", f"export TF_TOKEN_app_terraform_io={TFC}", 0, "Terraform Cloud API token")
C("credential", f"ARM_CLIENT_ID=4a1f6c0e-1b2d-4e8f-9a7b-3c5d2e1f0a9b ARM_CLIENT_SECRET='{ARM_SECRET}' terraform apply -auto-approve", 0,
  "Entra ID client secret")
C("credential", f"AWS_ACCESS_KEY_ID={AWS_ID} AWS_SECRET_ACCESS_KEY={AWS_SECRET} terragrunt apply", 0,
  "AWS key pair")
C("credential", "pulumi config set --secret dbPassword 'Plt#Rds!2026xx' --stack acme/platform/prod", 0,
  "plaintext secret passed to config set")
C("credential", "TF_VAR_grafana_admin_password='Graf@na-Adm1n' terraform apply -auto-approve", 0,
  "password in TF_VAR")

# =============================================================================================
# Windows desktop support / Intune
# =============================================================================================
C("auth", "Connect-MgGraph -Scopes DeviceManagementManagedDevices.ReadWrite.All -NoWelcome", 0, "Graph login")
C("auth", "Connect-ExchangeOnline -UserPrincipalName helpdesk.admin@acme-corp.com", 0, "interactive M365 login")
C("build", "IntuneWinAppUtil.exe -c .\\src\\VPNClient -s setup.exe -o .\\out -q", 0, "packages a Win32 app for Intune")
C("publish", "Publish-Module -Path .\\HelpdeskTools -Repository InternalPSGallery", 0,
  "publishes a module to the internal gallery (no key on the line)")
C("test", "Invoke-Pester -Path .\\tests -CI", 0, "Pester tests passed")
C("ssh", "Enter-PSSession -HostName ws-lon-114.corp.acme -UserName corp\\jdoe", 0,
  "PowerShell remoting over SSH (-HostName)")
C("db_connect", "sqlcmd -S sccm-db01.corp.acme -d CM_ACM -E -Q \"SELECT TOP 10 Name0 FROM v_R_System\"", 0,
  "integrated auth query to the ConfigMgr DB")
C("deploy", "Invoke-MgGraphRequest -Method POST -Uri \"https://graph.microsoft.com/beta/deviceAppManagement/mobileApps/"
            "7b2c41d0-93aa-4f61-b0de-5c8e2a17f3b4/assign\" -Body (Get-Content .\\assign-allusers.json -Raw)", 0,
  "assigns an Intune app to all users (rolls it out)")
C("trivial", "Get-ADUser jdoe -Properties LockedOut, LastLogonDate", 0, "read")
C("trivial", "ipconfig /all", 0, "read")
C("trivial", "Test-NetConnection fs01.corp.acme -Port 445", 0, "connectivity check, read only")
C("trivial", "Get-WinEvent -LogName System -MaxEvents 50 | Where-Object Id -eq 41", 0, "read")
C("trivial", "dir C:\\ProgramData\\Microsoft\\IntuneManagementExtension\\Logs", 0, "listing")
C("failure", "Connect-MgGraph -Scopes User.Read.All", 1, "consent denied")
C("failure", "Invoke-Pester -Path .\\tests -CI", 1, "tests failed")
C("failure", "Enter-PSSession -ComputerName ws-lon-201", 1, "WinRM cannot connect")
C("failure", "IntuneWinAppUtil.exe -c .\\src\\Teams -s setup.exe -o .\\out", 1, "setup file not found")
C("credential", "net use Z: \\\\fs01.corp.acme\\dept /user:CORP\\svc_print Pr1nt!Svc2026", 0, "password in net use")
C("credential", "cmdkey /add:term01.corp.acme /user:CORP\\jdoe /pass:Helpd3sk#77", 0, "password in cmdkey")
C("credential", "$cred = New-Object PSCredential('corp\\svc_deploy', (ConvertTo-SecureString 'W1nter!Deploy26' -AsPlainText -Force))", 0,
  "plaintext password converted to a credential")
C("credential", f"Publish-Module -Path .\\HelpdeskTools -NuGetApiKey {NUGET}", 0, "PowerShell Gallery API key")

# ---- a few more across populations ----------------------------------------------------------
C("deploy", "sf project deploy start --metadata ApexClass:InvoiceService --target-org prod --test-level RunSpecifiedTests --tests InvoiceServiceTest", 0,
  "targeted deploy to prod")
C("deploy", "wp @production theme activate harbour-2026", 0, "switches the live theme -> changes production")
C("deploy", "pulumi up --yes --stack acme/robot-fleet/prod --target 'urn:pulumi:prod::robot-fleet::aws:iot/thingGroup:ThingGroup::warehouse-b'", 0,
  "targeted Pulumi update")
C("publish", "sf package version promote --package AcmeConnectors@1.2.0-1 --no-prompt", 0, "package promote")
C("db_connect", "mysql --login-path=wp-prod -e 'SHOW TABLES' harbour_wp", 0, "login-path, no secret on the line")
C("build", "docker build -t pricer:dev -f docker/Dockerfile.pricer .", 0, "image build, no push")
C("build", "msbuild HelpdeskTray.sln /p:Configuration=Release /m", 0, "msbuild")
C("test", "vendor/bin/phpcs --standard=WordPress wp-content/plugins/harbour-booking && vendor/bin/phpunit", 0,
  "chain ending in passing phpunit")
C("test", "python3 -m pytest src/amr_bringup/test -p launch_pytest", 0, "ROS python tests passed")
C("auth", "gh auth login --hostname github.acme-corp.com --web", 0, "web login to GitHub Enterprise")
C("failure", "cf deploy mta_archives/sales_portal_1.3.0.mtar", 1, "deploy failed: service binding")
C("failure", "cmake --build build --target pricing_engine", 2, "compile error")
C("unknown_exit", "git push wpengine main", None, "push started, no exit recorded")
C("trivial", "git log --oneline -n 15", 0, "read")
C("trivial", "cat .sfdx/sfdx-config.json", 0, "read (config, no secret)")
C("credential", f"curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"deploy done\"}}' {SLACK_HOOK}", 0,
  "Slack incoming webhook URL is a secret")
C("credential", f"DD_API_KEY={DD_KEY} datadog-ci junit upload --service pricer reports/junit.xml", 0, "Datadog API key")
C("credential", f"jf rt upload 'dist/*.whl' quant-pypi-local/ --access-token={JFROG}", 0, "JFrog API key")
C("credential", f"git remote set-url origin https://x-access-token:{GH_FINE}@github.com/acme-robotics/fleet.git", 0,
  "fine-grained GitHub PAT in the remote URL")
C("credential", f"ssh-add - <<< '{EC_KEY}'", 0, "private key text")
C("credential", f"export TWILIO_ACCOUNT_SID={TWILIO_SID} TWILIO_AUTH_TOKEN={TWILIO_TOKEN}", 0, "Twilio auth token")
C("credential", f"doppler run --token {DOPPLER} -- npm start", 0, "Doppler service token")
C("credential", f"VAULT_TOKEN={VAULT} vault kv get -field=password secret/hana/prod", 0, "Vault token")
C("credential", "sqlcmd -S sccm-db01.corp.acme -U sa -P 'Sccm#Sa2026' -Q \"SELECT @@VERSION\"", 1,
  "failed login, but the sa password is on the line -> credential")
C("credential", f"docker login ghcr.io -u acme-robotics-bot -p {GHP}", 1,
  "failed login with a literal GitHub token")
C("credential", f"PULUMI_ACCESS_TOKEN={PULUMI} pulumi up --yes --stack acme/platform/staging", None,
  "token on the line, exit unknown -> credential")

# =============================================================================================
# Instructions (rules, chatter, credential) in several languages
# =============================================================================================
I("rule", "Never deploy to the prod org on a Friday afternoon, validate only.", "standing rule (en)")
I("rule", "From now on, always run the full Apex test suite before any deploy to prod.", "standing rule (en)")
I("rule", "Nigdy nie aktualizuj wtyczek na produkcji bez kopii zapasowej bazy.",
  "Polish: never update plugins on production without a DB backup")
I("rule", "Robota w hali B zawsze uruchamiaj najpierw w trybie symulacji.",
  "Polish: always run the hall-B robot in simulation mode first")
I("rule", "Bundan sonra her terraform apply öncesi plan çıktısını bana göster.",
  "Turkish: from now on show me the plan output before every terraform apply")
I("rule", "لا تقم أبداً بتعديل حالة terraform يدوياً.", "Arabic: never edit the terraform state by hand")
I("rule", "Kör alltid pytest innan du pushar till main.", "Swedish: always run pytest before pushing to main")
I("rule", "Từ giờ trở đi, luôn dùng tài khoản ci-bot khi deploy lên Salesforce.",
  "Vietnamese: from now on always use the ci-bot account for Salesforce deploys")
I("rule", "Whenever a robot is on the warehouse floor, don't restart its nav stack remotely.",
  "standing conditional rule (en)")
I("rule", "Jangan pernah menjalankan skrip perbaikan di laptop direksi tanpa tiket.",
  "Indonesian: never run fix scripts on executives' laptops without a ticket")
I("rule", "V tomto repozitáři vždy používáme Conventional Commits.",
  "Czech: in this repo we always use Conventional Commits (standing convention)")
I("chatter", "Can you deploy the harbour theme to staging?", "one-off request")
I("chatter", "Deploy the MTA to dev now please.", "one-off request")
I("chatter", "I always forget the flags for sf project deploy, ugh.", "trigger word, no order")
I("chatter", "Never mind, I'll run the backtest myself.", "never mind")
I("chatter", "Bu seferlik lint adımını atla.", "Turkish: skip the lint step just this time (one-off)")
I("chatter", "Tack, det fungerade!", "Swedish: thanks, it worked")
I("chatter", "Czy możesz teraz odpalić testy?", "Polish: can you run the tests now? (one-off question)")
I("chatter", "Hôm nay đừng deploy nhé, mình đang họp.",
  "Vietnamese: don't deploy today, I'm in a meeting (scoped to today)")
I("chatter", "Did we always have SSH access to the colo box?", "question")
I("chatter", "Πάντα ξεχνάω πού είναι τα logs του Intune.",
  "Greek: I always forget where the Intune logs are (no order)")
I("chatter", "ok, דחוף את זה", "Hebrew: ok, push it (one-off ack)")
I("credential", f"Завжди використовуй цей токен для реєстру: {DOCKER_PAT}",
  "Ukrainian rule-shaped instruction carrying a Docker PAT -> credential")
I("credential", f"Here's the Maps key for the robot dashboard, keep using it: {GCP_KEY}",
  "Google API key in an instruction")


CANDIDATE_KIND = {"deploy": "capability", "publish": "capability", "auth": "capability",
                  "db_connect": "capability", "ssh": "capability", "build": "procedure",
                  "test": "procedure", "rule": "rule"}

SECRET_RE = re.compile(r"(AKIA[0-9A-Z]{16}|pul-[0-9a-f]{40}|atlasv1|glpat-|github_pat_|dckr_pat_|hf_[A-Za-z]{30}|"
                       r"sk-ant-|oy2[a-z0-9]{40}|AKCp8|shpat_|hooks\.slack\.com|hvs\.|dp\.st\.|AIza|"
                       r"ghp_|force://|PRIVATE KEY|![A-Z]{2}[A-Za-z0-9.]{60}|8Q~|-p'|--pass|/pass:|AsPlainText)")


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    items = list(rows)
    rng2 = random.Random(4242)
    rng2.shuffle(items)
    lines = []
    for n, (cat, ev, why) in enumerate(items, start=1):
        cand = cat in CANDIDATE_KIND
        text = ev.get("command") or ev.get("text")
        if cand:
            assert not SECRET_RE.search(text), text
        if ev["type"] == "command":
            rc = ev["exit_status"]
            if cand:
                assert rc == 0, text
            if cat == "failure":
                assert rc not in (0, None), text
            if cat == "unknown_exit":
                assert rc is None, text
        else:
            assert cat in ("rule", "chatter", "credential"), text
        if cat == "rule":
            assert ev["type"] == "instruction"
        lines.append({"id": f"i{n:04d}", "event": ev,
                      "expect": {"candidate": cand, "kind": CANDIDATE_KIND.get(cat), "category": cat},
                      "why": why})
    with open(os.path.join(out_dir, "activity_log_i.jsonl"), "w", encoding="utf-8") as fh:
        for obj in lines:
            fh.write(json.dumps(obj, ensure_ascii=False) + "\n")
    counts = {}
    for obj in lines:
        counts[obj["expect"]["category"]] = counts.get(obj["expect"]["category"], 0) + 1
    print(len(lines), "lines;", sum(o["expect"]["candidate"] for o in lines), "candidates;",
          sum(o["event"]["type"] == "instruction" for o in lines), "instructions")
    for k in ("deploy", "publish", "auth", "db_connect", "ssh", "build", "test", "rule", "failure",
              "unknown_exit", "trivial", "chatter", "credential"):
        print(f"  {k:13s} {counts.get(k, 0)}")


if __name__ == "__main__":
    main()
