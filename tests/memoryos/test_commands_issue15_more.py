"""Issue #15, fifth corpus's families (written from what each tool and language does, not from any
corpus line): PlatformIO and Godot builds, HPC launchers judged by their inner command, a build
folder synced to a remote bucket, SST through a JS runner, framework database shells, Hackage
publishes, a dry run inside combined short flags; and standing rules in German, French, Spanish,
Portuguese, Italian, Japanese and Chinese. Each family has its negatives beside it."""

from __future__ import annotations

import pytest

from memoryos.policies import commands
from memoryos.policies.capture import Event, classify


def _kind(command: str) -> str | None:
    return commands.command_kind(command)


def _rule(text: str) -> bool:
    found = classify(Event("instruction", text=text))
    return found is not None and found.kind == "rule"


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("pio run --environment nano33ble", "build"),
        ("~/.platformio/penv/bin/platformio run -e teensy41 -t upload", "deploy"),  # writes the board
        ("godot --headless --path game --export-release 'Windows Desktop' out/game.exe", "build"),
        ("godot4 --headless --export-debug Android bin/debug.apk", "build"),
        ("sbt clean assembly", "build"),
        ("srun --partition=cpu -n 2 cargo test --release", "test"),
        ("srun --partition debug ./run_tests.sh", "test"),
        ("mpiexec -n 16 -hostfile nodes.txt make check", "test"),
        ("sbatch --time=01:00:00 --wrap='cmake --build build -j 8'", "build"),
        ('sbatch --wrap "ctest --test-dir build"', "test"),
        ("rclone sync ./_site s3remote:docs-site --progress", "deploy"),
        ("rclone copy dist b2:static-assets/app", "deploy"),
        ("gsutil -m rsync -d -r build gs://marketing-site", "deploy"),
        ("az storage blob upload-batch --source public --destination '$web' --overwrite", "deploy"),
        ("pnpm sst deploy --stage production", "deploy"),
        ("bunx sst deploy", "deploy"),
        ("yarn sls deploy --stage dev", "deploy"),
        ("wp db cli --path=/srv/blog", "db_connect"),
        ("php artisan db pgsql", "db_connect"),
        ("./bin/rails dbconsole -e production", "db_connect"),
        ("python3 manage.py dbshell --database replica", "db_connect"),
        ("cabal upload --publish dist-newstyle/sdist/mylib-0.3.tar.gz", "publish"),
        ("stack upload mylib", "publish"),
        ("rsync -avz --delete public/ deploy@web1:/srv/site", "deploy"),
        ("make -j4 deploy", "deploy"),
    ],
)
def test_fifth_corpus_families_are_recognised(command: str, kind: str) -> None:
    assert _kind(command) == kind


@pytest.mark.parametrize(
    "command",
    [
        "pio device monitor -b 115200",  # a serial console, nothing built
        "godot --editor --path game",
        "pio run -t clean",
        "srun --pty bash -l",  # an interactive shell on a node
        "srun -N1 nvidia-smi",
        "mpirun -np 4 ./simulate input.nml",
        "sbatch jobs/train.slurm",  # a job queued: nothing has run yet
        "rclone sync gdrive:photos ./photos",  # a download
        "rclone sync ~/Documents b2:backup",  # a backup, not a site
        "rclone lsd r2:",
        "php artisan db:seed",
        "php artisan migrate",
        "cabal upload dist-newstyle/sdist/mylib-0.3.tar.gz",  # a candidate, not a release
        "stack upload --candidate mylib",
        "rsync -avzn --delete public/ deploy@web1:/srv/site",  # a dry run in the cluster
        "rsync -nrv dist/ web:/var/www",
        "make -nj4 deploy",
        "make -Bn release",
    ],
)
def test_fifth_corpus_neighbours_are_not_candidates(command: str) -> None:
    assert _kind(command) is None


@pytest.mark.parametrize(
    "text",
    [
        "In Zukunft bitte jede Migration mit einem Rollback-Skript versehen.",
        "Ab sofort schreibst du Docstrings auf Deutsch.",
        "Zukünftig keine direkten Commits auf den Release-Branch.",
        "Bitte lass bei neuen Endpunkten keine Authentifizierung weg.",
        "Bitte mach keine Merge-Commits in Feature-Branches.",
        "Désormais, utilise pnpm au lieu de npm.",
        "Dorénavant, ajoute un test pour chaque bug corrigé.",
        "À partir de maintenant, ne pousse jamais directement sur main.",
        "De ahora en adelante, documenta cada endpoint nuevo.",
        "A partir de ahora nunca borres migraciones antiguas.",
        "A partir de agora, use sempre commits pequenos.",
        "D'ora in poi, scrivi i commenti in inglese.",
        "今後はPRに必ずスクリーンショットを添付してください。",
        "これからはログに個人情報を出力しないでください。",
        "本番データベースを直接変更しないでください。",
        "必ずレビューを受けてからマージしてください。",
        "以后所有接口都要写文档，请记住。",
        "今后提交前请先运行格式化工具。",
        "请不要在代码里硬编码密码。",
        "务必使用参数化查询。",
    ],
)
def test_standing_rules_in_other_languages(text: str) -> None:
    assert _rule(text)


@pytest.mark.parametrize(
    "text",
    [
        "Ab sofort ist der Server wieder erreichbar.",
        "In Zukunft wird das Team größer.",
        "Désormais, le build est plus rapide.",
        "A partir de ahora el servicio está caído.",
        "D'ora in poi il deploy è automatico.",
        "今後の予定はまだ決まっていません。",
        "これから会議です。",
        "心配しないでください。",
        "今回はテストをスキップしないでください。",
        "以后再说。",
        "别担心，我来处理。",
        "请不要现在重启服务器吗？",
        "明日の打ち合わせを忘れないでください。",
        "必须的！",
        "Ich arbeite ab jetzt im Homeoffice.",
        "Désormais je travaille sur le module de paiement.",
        "A partir de ahora yo me encargo del backend.",
        "禁止事項は特にありません。",
    ],
)
def test_facts_one_offs_and_reassurances_are_not_rules(text: str) -> None:
    assert not _rule(text)
