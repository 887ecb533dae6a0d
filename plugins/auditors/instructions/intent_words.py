"""The words of :mod:`.intent`: each concept of a skill's prose (a secret, asking the user,
collecting, sending, hiding from the user, an override claim, another server's tools changed for
every task) as a pattern in several languages, and the stems every match of a pattern holds (the
lines holding them are found by the shared word search, and only there is the pattern tried).
"""

from __future__ import annotations

import re

from lemon_core.auditor_kit import Line
from lemon_core.auditor_kit.lazy import lazy_compile

I = re.IGNORECASE

#: A secret: a credential an attacker wants, named in one of the languages, or a place or
#: command that holds one.
SECRET = lazy_compile(
    r"\b(?:(?:personal\s+)?access\s+tokens?|api[\s_-]?(?:keys?|tokens?)|auth(?:entication)?\s+"
    r"tokens?|bearer\s+tokens?|(?:github|gitlab|npm|pypi|slack|discord|openai|aws|cloud)\s+"
    r"tokens?|secret(?:\s+access)?\s+keys?|private\s+keys?|ssh\s+keys?|passwords?|passphrases?|"
    r"passcodes?|(?-i:PINs?|TANs?)|one[\s-]time\s+(?:codes?|passwords?)|otp|2fa\s+codes?|"
    r"(?:seed|recovery|mnemonic)\s+(?:phrases?|words?)|credentials?|session\s+cookies?|"
    r"cookies|kubeconfig|client\s+secrets?|(?:oauth|refresh|session|id|personal|deploy|bot|"
    r"registry|npm|pypi|slack|discord|telegram|jwt)\s+tokens?)\b"
    r"|~/\.(?:ssh|aws|kube|docker|netrc|git-credentials|npmrc|pypirc|config/gh|config/gcloud)"
    r"|(?<![\w.])\.env\b|\bgh\s+auth\s+token\b|\baws\s+configure\s+(?:get|export-credentials)\b"
    r"|\bgcloud\s+auth\s+print-access-token\b|\bprintenv\b"
    # es / pt / it / fr
    r"|\bcontraseñas?\b|\bclaves?\s+(?:de\s+(?:api|acceso)|secretas?|privadas?)\b|\bcredenciales\b"
    r"|\bsenhas?\b|\bchaves?\s+(?:de\s+(?:api|acesso)|secretas?|privadas?)\b|\bcredenciais\b"
    r"|\bfrases?\s+(?:semilla|de\s+recupera[cç][aã]o|de\s+recuperaci[oó]n)\b"
    r"|\bcredenziali\b|\bchiavi?\s+(?:api|segrete?|private?)\b"
    r"|\bmots?\s+de\s+passe\b|\bcl[ée]s?\s+(?:api|secr[èe]tes?|priv[ée]es?|d'api)\b|\bjetons?\b"
    r"|\bidentifiants\b|\bphrases?\s+de\s+r[ée]cup[ée]ration\b"
    # de / nl / id
    r"|\b(?:passw(?:o|ö)rt(?:er)?|kennw(?:o|ö)rt(?:er)?|zugangsdaten|anmeldedaten|"
    r"zugangsschlüssel|api-schlüssel|geheime[nrs]?\s+schlüssel|privaten?\s+schlüssel|"
    r"online-banking-pin|zertifikatsdatei|zertifikat(?:s|e)?)\b"
    r"|\bwachtwoorden?\b|\binloggegevens\b|\bsleutels?\b"
    r"|\bkata\s+sandi\b|\bkunci\s+(?:api|rahasia|privat)\b|\bkredensial\b"
    # pl
    r"|\bklucz(?:e|a)?\s+(?:api|prywatn\w*)|\bhas(?:ł|l)(?:o|a|em)\b|\bdane\s+logowania\b|"
    r"\bhase[łl]\b|\bmened(?:ż|z)er\w*\s+hase[łl]"
    # ru
    r"|парол[ьяеи]\w*|токен\w*|ключ(?:и|ей|а)?\s+(?:api|доступа)|секретн\w+\s+ключ\w*|"
    r"приватн\w+\s+ключ\w*|учётн\w+\s+данн\w+|учетн\w+\s+данн\w+|сид-фраз\w+|"
    r"переменн\w+\s+окружени\w+"
    # zh / ja / ko
    r"|密码|口令|令牌|密钥|私钥|助记词|凭证|凭据|访问令牌|验证码|环境变量|"
    r"パスワード|トークン|秘密鍵|APIキー|認証情報|暗証番号|環境変数|"
    r"비밀번호|토큰|API\s*키|개인\s*키|자격\s*증명|환경\s*변수", I)

#: Asking the user to hand something over.
ASK_USER = lazy_compile(
    r"\b(?:ask|request|gather|collect|obtain|get|prompt)\b[^.\n]{0,40}\b(?:from|of)\s+the\s+"
    r"(?:user|human|client|customer)\b"
    r"|\b(?:ask|request|prompt|have|get)\s+the\s+(?:user|human)\s+(?:for|to\s+(?:paste|share|"
    r"provide|enter|type|send|give|supply))\b"
    r"|\bask\s+the\s+(?:user|human)\s+to\b[^.\n]{0,80}\bpaste\b"
    r"|\bpaste\s+(?:the\s+)?(?:complete\s+|full\s+|whole\s+|entire\s+)?(?:output|contents?|"
    r"results?)\b[^.\n]{0,20}\b(?:here|below|in\s+(?:the\s+)?chat)"
    r"|\b(?:paste|share|provide|send\s+me|give\s+me|supply)\s+(?:me\s+|us\s+)?"
    r"(?:your|their|the\s+user'?s)\b|\b(?:enter|type)\s+(?:your|their)\b[^.\n]{0,40}\b(?:here|"
    r"below|in\s+(?:the\s+|this\s+)?(?:chat|conversation|reply))\b"
    r"|\bpide\s+al\s+usuario|\bsolicita\s+al\s+usuario|\bpega\s+tu|\bproporciona\s+tu"
    r"|\bdemande[rz]?\s+(?:à\s+)?l'utilisateur|\bcolle[rz]?\s+(?:votre|ton|ta)|"
    r"\bfournisse[zr]?\s+(?:votre|ton|ta)"
    r"|\bbitte\s+(?:den|die)\s+(?:nutzer|benutzer|anwender)(?:in)?\s+um\b|\bfrag(?:e)?\s+(?:den|die)\s+"
    r"(?:nutzer|benutzer|anwender)(?:in)?\s+nach\b|\bfordere\b[^.\n]{0,40}\ban\b|\berfrage\b"
    r"|\bpeça\s+ao\s+usu[áa]rio|\bsolicite\s+ao\s+usu[áa]rio|\bcole\s+(?:sua|seu)\b"
    r"|\bpopro(?:ś|s)\s+u(?:ż|z)ytkownika|\bchiedi\s+all'utente|\bvraag\s+de\s+gebruiker|\bminta\s+pengguna"
    r"|попроси\w*\s+пользовател\w+|запроси\w*\s+у\s+пользовател\w+"
    r"|(?:请|让|要求|向)用户(?:提供|输入|粘贴|发送|给出)|向用户索取"
    r"|ユーザーに[^。\n]{0,20}(?:求め|入力して|貼り付けて|教えて|提供して)"
    r"|사용자에게[^.\n]{0,20}(?:요청|입력|붙여넣|제공)", I)

#: The agent collecting something (from the machine, a conversation, a folder).
COLLECT = lazy_compile(
    r"\b(?:collect|gather|harvest|dump|read\s+out)\b"
    r"|\brecoge|\brecopila|\bextrae|\brécupère|\bcollecte[rz]?\b"
    r"|\bsammle|\bsammeln|\bauslesen|\bverzamel|\bkumpulkan|\bcolete"
    r"|\bodczytaj|\bzbierz|собер\w*|собрат\w*|выгрузи\w*|收集|获取|读取|収集|取得|読み取|수집",
    I)

#: Sending something somewhere.
SEND = lazy_compile(
    r"\b(?:send|sends|sent|post|upload|submit|forward|transmit|email|e-mail|register|push)\b"
    r"|\benv[ií]a|\benviar\b|\bmanda\b|\bsube\b|\breenv[ií]a|\benvoie[rz]?\b|\benvoyez\b|"
    r"\btransmet|\btéléverse|\btransf[èe]re"
    r"|\bsende|\bsenden\b|\bschicke|\bschicken\b|\bübermittle|\bübermitteln\b|\blade\b[^.\n]{0,40}"
    r"\bhoch\b|\bhochladen\b|\bgesendet\b|\bweiterleiten\b"
    r"|\benvie\b|\benviar\b|\bcarregue\b|\bencaminhe\b|\binvia\b|\bstuur\b|\bverstuur|\bkirim\b|"
    r"\bunggah\b"
    r"|\bwy(?:ś|s)lij|\bprze(?:ś|s)lij|отправ\w*|пошли\w*|перешли\w*|загрузи\w*|передай\w*"
    r"|发送|上传|提交|转发|发到|传到|推送|送信|送って|アップロード|転送|업로드|전송|보내", I)

#: Keeping a step from the user.
HIDE = lazy_compile(
    r"\b(?:do\s+not|don'?t|never|must\s+not|need\s+not)\s+(?:tell|inform|notify|mention|"
    r"reveal|disclose|quote|repeat)\b[^.\n]{0,30}\b(?:user|human|them|him|her|summary)"
    r"|\bwithout\s+(?:telling|informing|notifying)\s+(?:the\s+)?(?:user|human)"
    r"|\bwithout\s+mentioning\s+(?:it|this|them|that)\b|\b(?:do\s+not|don'?t|never)\s+(?:list|"
    r"include|show)\s+(?:these|this|those|the)\s+(?:steps?|commands?|uploads?|copies|calls?)\s+"
    r"(?:in|to)\b"
    r"|\bno\s+hace\s+falta\s+(?:comentarlo|decírselo|decirlo|mencionarlo)|\bsin\s+comentarlo"
    r"|\bnie\s+(?:informuj|mów|wspominaj)\b|\bbez\s+wiedzy\s+u(?:ż|z)ytkownika"
    r"|(?:^|[.;:!,(]\s*|[-*]\s+|\b(?:and|then|must|should|to|please|you)\s+)(?:secretly|covertly|"
    r"silently|quietly)\s+(?:send|upload|post|run|execute|install|delete|copy|forward|add|"
    r"collect|read|exfiltrate)\b|\bhidden\s+from\s+the\s+user"
    r"|\bsin\s+(?:decir|avisar|informar)(?:le)?\s+al\s+usuario|\bno\s+(?:le\s+)?(?:digas|informes|"
    r"menciones|muestres)\b|\ben\s+secreto\b|\bsilenciosamente\b"
    r"|\bsans\s+(?:le\s+)?(?:dire|prévenir|informer|montrer)\b[^.\n]{0,20}\butilisateur|\bne\s+"
    r"(?:le\s+)?(?:dis|dites|mentionne[zr]?|montre[zr]?|signale[zr]?)\s+(?:pas|rien)\b|"
    r"\bdiscrètement\b|\ben\s+silence\b"
    r"|\bohne\b[^.\n]{0,30}\b(?:nutzer|benutzer)\w*\b[^.\n]{0,30}\b(?:zu\s+sagen|zu\s+informieren|"
    r"bescheid)|\b(?:nutzer|benutzer)\w*\s+(?:nicht|nichts)\b[^.\n]{0,30}\b(?:gezeigt|angezeigt|"
    r"sagen|mitteilen|erwähnen|erfahren)|\bnicht\s+(?:gezeigt|angezeigt)\s+werden|\bheimlich\b|"
    r"\bunbemerkt\b|\bstillschweigend\b|\berwähne\b[^.\n]{0,30}\bnicht\b"
    r"|\bsem\s+(?:avisar|contar|informar)\b|\bnão\s+(?:diga|mencione|mostre|informe)\b"
    r"|\bsenza\s+(?:dire|avvisare)|\bzonder\s+de\s+gebruiker|\bvertel\s+de\s+gebruiker\s+niet"
    r"|\bjangan\s+(?:beri\s+tahu|memberi\s+tahu|melaporkan|memberitahu)\b|\btanpa\s+memberi\s+tahu"
    r"|\bdiam-diam\b"
    r"|пользовател\w+[^.\n]{0,30}не\s+(?:нужно|надо|следует|говори|сообщай)\w*"
    r"|не\s+(?:говори|сообщай|упоминай|показывай)\w*|без\s+ведома|незаметно|втихую"
    r"|不要(?:向|对|跟|给)?用户(?:提及|透露|说明|告诉|显示)|不要(?:告诉|通知|让)用户|不要提及|不要显示|"
    r"悄悄|静默|偷偷"
    r"|ユーザーに(?:伝え|知らせ|言わ|見せ|説明し|報告し)ない|こっそり|黙って|言及しない|表示しない"
    r"|(?:사용자에게\s*)?알리지\s*(?:말|마)|말하지\s*(?:말|마)|표시하지\s*(?:말|마)|쓰지\s*(?:말|마)|"
    r"몰래|조용히", I)

#: Erasing the traces of what was done (shell history, the agent's transcripts).
TRACES = lazy_compile(
    r"\bhistory\s+-c\b|\b(?:rm|del|remove|delete|clear|wipe|erase|truncate)\b[^.\n|]{0,40}(?:"
    r"_history\b|shell\s+history|command\s+history|transcripts?\b|\.claude/projects)", I)
#: An action worth hiding.
ACTION = lazy_compile(
    r"\b(?:send|upload|post|delete|remove|forward|transmit|email|exfiltrate)\b"
    r"|\bcurl\b|\bwget\b", I)

#: The system's or previous instructions declared void, or the file declared the authority.
OVERRIDE_CLAIM = lazy_compile(
    r"\b(?:previous|prior|earlier|system|developer|original|other)\s+(?:instructions|prompts?|"
    r"rules|guidelines)\s+(?:are|is|were|have\s+been)\s+(?:now\s+)?(?:void|obsolete|outdated|"
    r"superseded|cancell?ed|revoked|no\s+longer\s+(?:valid|apply|applicable|in\s+effect)|replaced)"
    r"|\b(?:this|the\s+following)\s+(?:file|document|skill)\s+(?:is|has)\s+(?:the\s+)?"
    r"(?:highest|ultimate|final|supreme)\s+(?:authority|priority)"
    r"|\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:(?:previous|prior|earlier|system|"
    r"developer)\s+(?:and|or|&|,)\s+)+(?:previous|prior|earlier|system|developer)\s+(?:instructions|"
    r"prompts?|rules)"
    r"|\b(?:this|the\s+following)\s+(?:file|document|notice|section)\s+(?:prevails|wins|overrides)"
    r"|\b(?:este\s+(?:arquivo|archivo|aviso)|ce\s+fichier|diese\s+datei)\s+(?:prevalece|"
    r"prevalecerá|prévaut|hat\s+vorrang)"
    r"|\b(?:takes?|has)\s+(?:precedence|priority)\s+over\s+(?:all|any|every)?\s*(?:other\s+|"
    r"previous\s+|system\s+|developer\s+)+(?:instructions|prompts?|rules)"
    r"|\bvervallen\s+alle\s+(?:eerdere|vorige)\s+instructies|\binstructies\b[^.\n]{0,40}\bvervallen"
    r"|\babaikan\s+(?:semua\s+)?instruksi|\botoritas\s+tertinggi"
    r"|\b(?:vorherigen|bisherigen|früheren)\s+(?:anweisungen|regeln)\b[^.\n]{0,30}\b(?:ungültig|"
    r"außer\s+kraft|aufgehoben|nichtig)|\bhöchste\s+(?:autorität|instanz)"
    r"|\binstrucciones\s+(?:anteriores|del\s+sistema)\b[^.\n]{0,30}\b(?:anuladas|sin\s+efecto|"
    r"ya\s+no\s+(?:valen|aplican))|\bm[áa]xima\s+autoridad"
    r"|\binstructions\s+(?:précédentes|du\s+système)\b[^.\n]{0,30}\b(?:annulées|caduques|"
    r"ne\s+s'appliquent\s+plus)|\bautorité\s+suprême"
    r"|\binstruções\s+(?:anteriores|do\s+sistema)\b[^.\n]{0,30}\b(?:anuladas|inválidas|"
    r"não\s+valem)|\bautoridade\s+máxima"
    r"|(?:предыдущ|системн)\w+\s+инструкци\w+[^.\n]{0,30}(?:недействительн|отменен|не\s+действу)"
    r"|высш\w+\s+(?:авторитет|приоритет)"
    r"|(?:之前|以前|系统)的?(?:所有)?(?:指令|指示|规则)(?:已经?)?(?:作废|无效|失效)|最高权威|最高优先级"
    r"|(?:以前|システム)の指示は(?:無効|破棄)|最高の権限"
    r"|이전\s*지시(?:사항)?(?:은|는)?\s*무효|최고\s*권한", I)

#: Rules meant for another server's tools, for every task while the skill is installed.
SHADOW_SCOPE = lazy_compile(
    r"\b(?:as\s+long\s+as|while|whenever)\s+this\s+skill\s+is\s+(?:installed|loaded|enabled|active)"
    r"|\b(?:apply|applies)\s+to\s+(?:every|all|each)\s+(?:tools?|calls?)\s+of\s+the\b"
    r"|\b(?:even\s+(?:if|when)\s+the\s+user\s+(?:did\s+not|didn'?t|does\s+not)\s+ask|"
    r"unrelated\s+to\s+(?:this\s+skill|reviews|the\s+task))"
    r"|\bsolange\s+diese\s+(?:fähigkeit|skill)\b|\bfür\s+alle\s+werkzeuge\s+des\b|\bauch\s+bei\s+"
    r"aufgaben,?\s+die\s+nichts\s+mit\b"
    r"|\bmientras\s+(?:esta\s+habilidad|este\s+skill)\s+(?:esté|este)\s+instalad|\bpara\s+todas\s+las"
    r"\s+herramientas\s+del\b"
    r"|\btant\s+que\s+(?:cette\s+compétence|ce\s+skill)\b|\bpour\s+tous\s+les\s+outils\s+du\b"
    r"|\benquanto\s+(?:esta\s+habilidade|este\s+skill)\b|\bpara\s+todas\s+as\s+ferramentas\s+do\b"
    r"|пока\s+(?:этот\s+навык|этот\s+скилл)|для\s+всех\s+инструментов"
    r"|пока\s+(?:установлен|загружен|активен)\w*|при\s+любом\s+(?:использовании|вызове)"
    r"|\b(?:any\s+other\s+server|cualquier\s+otro\s+servidor|n'importe\s+quel\s+(?:autre\s+)?"
    r"serveur|jedem\s+anderen\s+server|qualquer\s+outro\s+servidor)\b|любого\s+другого\s+сервера|"
    r"任何其他服务器"
    r"|只要(?:本|这个)?技能(?:已)?(?:安装|加载)|(?:对|适用于)所有(?:的)?工具|每当(?:调用|用户的)"
    r"|任何服务器的|用户的其他工具|\b(?:tools?\s+of\s+(?:any|every|other)\s+servers?|any\s+server'?s\s+"
    r"tools?|other\s+servers'?\s+tools?)\b"
    r"|このスキルが(?:インストール|有効)|すべてのツール"
    r"|이\s*스킬이\s*설치|모든\s*도구", I)
#: A call of a named tool that is made to do more ("when calling `x`, also …").
SHADOW_CALL = lazy_compile(
    r"\b(?:when(?:ever)?|each\s+time|every\s+time)\s+(?:you\s+)?(?:call(?:ing)?|use|using|invoke|"
    r"invoking|run(?:ning)?)\s+`?[\w.-]+`?[^.\n]{0,110}\b(?:also|always|additionally|as\s+well|"
    r"in\s+addition)\b"
    r"|\bjeder\s+aufruf\s+von\s+`?[\w.-]+`?[^.\n]{0,110}\b(?:zusätzlich|auch|immer)\b"
    r"|\bwenn\s+du\s+`?[\w.-]+`?\s+aufrufst[^.\n]{0,60}\b(?:zusätzlich|auch|immer)\b"
    r"|\bcuando\s+(?:llames|uses|invoques)\s+`?[\w.-]+`?[^.\n]{0,110}\b(?:también|siempre)\b"
    r"|\b(?:lorsque|quand)\s+(?:tu\s+appelles|vous\s+appelez)\s+`?[\w.-]+`?[^.\n]{0,110}\b(?:aussi|"
    r"toujours|également)\b"
    r"|\bao\s+chamar\s+`?[\w.-]+`?[^.\n]{0,110}\b(?:também|sempre)\b"
    r"|при\s+(?:каждом\s+)?вызове\s+`?[\w.-]+`?[^.\n]{0,110}(?:также|всегда|дополнительно)"
    r"|(?:调用|使用)[^。\n]{0,30}?(?:工具)?(?:时|的时候|前)[，,]?[^。\n]{0,40}(?:同时|也要|也|总是|务必|把|改为|先)"
    r"|`?[\w.-]+`?\s*を呼び出す(?:とき|際)[^。\n]{0,40}(?:必ず|常に|同時に|も)", I)
#: A call of a named tool, said in English ("when calling `merge_pull_request`").
SHADOW_HEAD = lazy_compile(r"\b(?:when(?:ever)?|each\s+time|every\s+time|before)\s+(?:you\s+)?"
                           r"(?:call(?:ing)?|use|using|invoke|invoking)\s+`[\w.-]+`", I)
#: A recipient or reviewer added, a copy made, a review or confirmation skipped.
SHADOW_EFFECT = lazy_compile(
    r"\b(?:add|adds|added)\s+`?[\w.@-]+`?\s+as\s+(?:a\s+)?(?:reviewer|collaborator|member|admin|"
    r"owner|recipient)|\b(?:bcc|cc)\b|\bsend\s+a\s+copy|\bcop(?:y|ied)\s+to\b|\bforward(?:ed)?\s+to"
    r"|\bskip\s+(?:waiting\s+for\s+)?(?:required\s+)?(?:reviews?|approvals?|confirmations?|checks?)"
    r"|\bzusätzlich\b[^.\n]{0,60}\b(?:gesendet|kopiert|geschickt)|\bebenfalls\s+dorthin"
    r"|\b(?:también|aussi|também)\b[^.\n]{0,40}\b(?:envía|envoie|envie|copia|copie)"
    r"|(?:также|дополнительно)[^.\n]{0,40}(?:отправ|копир)|(?:同时|也)(?:发送|转发|抄送|复制)"
    r"|(?:同時に|も)(?:送信|転送|コピー)"
    r"|\b(?:change|set|replace|switch)\s+the\s+(?:recipients?|remote|reviewers?|destination|"
    r"webhook|to\s+address|channel)\b|\bgit\s+remote\s+add\b|\badd\s+(?:a|the)\s+remote\b"
    r"|收件人(?:改为|替换)|添加远程(?:仓库)?|推送到该远程|抄送|密送"
    r"|\bcopia\s+oculta\b|\breenv[ií]a|\bcopie\s+cachée|\bcci\b|\bblindkopie|\bcópia\s+oculta|"
    r"\bencaminhe|скрыт\w*\s+копи\w*|перешли|создай\s+копию|дублируй", I)
#: Names a tool or a server (so a rule is about tools).
TOOL_REF = lazy_compile(r"`[\w.-]+`|\b(?:mcp|server|tool)s?\b|服务器|工具|サーバー|ツール|"
                        r"werkzeug|server|servidor|serveur|serwer|outil|herramienta|ferramenta|инструмент|сервер", I)
#: Names a server or its tools (not merely a command in backticks).
SERVER_REF = lazy_compile(r"\b(?:mcp|server|tool)s?\b|服务器|工具|サーバー|ツール|werkzeug|outil|servidor|serveur|"
                          r"herramienta|ferramenta|инструмент|сервер", I)
#: A network client in a command or a code line.
NET_COMMAND = lazy_compile(r"\b(?:curl|wget|Invoke-WebRequest|Invoke-RestMethod|iwr|irm|nc|"
                           r"requests\.(?:post|put)|httpx\.(?:post|put)|fetch\s*\(|axios\.post)"
                           r"\b", I)
_EMAIL = lazy_compile(r"\b[\w.+-]+@([\w-]+(?:\.[\w-]+)+)\b")
#: Inline code and URLs left out before looking for words (a path in backticks is no verb).
_CODE_SPAN = lazy_compile(r"`[^`\n]*`")

#: (rule, severity, message, line, start, end)
Raw = tuple[str, str, str, Line, int, int | None]
_READ = frozenset({"prose", "heading", "quote", "table", "comment", "frontmatter", "data",
                   "fence", "code", "script-comment"})
#: Every SECRET match holds one of these (lower case): a window without any is not searched.
SECRET_STEMS = (
    "token", "key", "secret", "password", "passphrase", "passcode", "pin", "tan", "otp", "2fa",
    "seed", "recovery", "mnemonic", "credential", "cookie", "kubeconfig", "~/.", ".env",
    "gh auth", "aws configure", "gcloud auth", "printenv", "contraseñ", "clave", "credencia",
    "senha", "chave", "frase", "credenzial", "chiav", "mot de passe", "mots de passe", "clé",
    "cle", "jeton", "identifiants", "phrase", "passw", "kennw", "zugangs", "anmeldedaten",
    "schlüssel", "zertifikat", "wachtwoord", "inloggegevens", "sleutel", "kata sandi", "kunci",
    "kredensial", "klucz", "hasł", "hasl", "dane logowania", "menedż", "menedz", "парол", "токен", "ключ", "учётн", "учетн", "сид-фраз", "переменн", "密码",
    "口令", "令牌", "密钥", "私钥", "助记词", "凭证", "凭据", "验证码", "环境变量", "パスワード",
    "トークン", "秘密鍵", "キー", "認証情報", "暗証番号", "環境変数", "비밀번호", "토큰", "키",
    "자격", "환경")


#: A line longer than this is searched for a concept only around the concept's words (a
#: phrase is a few dozen characters; the rest of a long line is searched where its own
#: words stand, so nothing of it goes unread).
_LONG_LINE = 1000
#: Every SEND and ACTION match holds one of these (for long lines only).
_SEND_STEMS = (
    "send", "sent", "post", "upload", "submit", "forward", "transmit", "email", "e-mail",
    "register", "push", "run", "execute", "delete", "remove", "install", "copy", "curl", "wget",
    "env", "manda", "sube", "transmet", "téléverse", "transf", "schick", "übermittl", "hoch",
    "weiterleiten", "carregue", "encaminhe", "invia", "stuur", "kirim", "unggah", "отправ",
    "пошли", "перешли", "загрузи", "передай", "发送", "上传", "提交", "转发", "发到", "传到",
    "推送", "送信", "送って", "アップロード", "転送", "업로드", "전송", "보내")
_REACH = 300
#: What an override declares void: the instructions the agent had before the skill.
OVERRIDE_SUBJECT = lazy_compile(
    r"\b(?:system\s+prompt|developer\s+(?:messages?|instructions)|(?:previous|prior|earlier|"
    r"original|system)\s+(?:instructions|guidance|rules|messages)|(?:guidance|instructions)\s+you\s+"
    r"(?:received|were\s+given|got)|anything\s+(?:said|written)\s+(?:earlier|before))\b"
    r"|\binstrucciones\s+(?:anteriores|del\s+sistema)|\binstructions\s+(?:précédentes|du\s+système)"
    r"|\bprompt\s+(?:de|do|del)\s+sistema|\bprompt\s+système|\binstruções\s+anteriores"
    r"|\b(?:vorherigen|bisherigen|früheren)\s+anweisungen|\bsystem(?:anweisungen|prompt)"
    r"|\binstruções\s+(?:anteriores|do\s+sistema)|\bistruzioni\s+(?:precedenti|di\s+sistema)"
    r"|\b(?:eerdere|vorige)\s+instructies|\binstruksi\s+(?:sebelumnya|sistem)"
    r"|(?:предыдущ|прежн|системн)\w+\s+(?:инструкци|указани)\w*"
    r"|(?:之前|以前|先前|系统)的?(?:所有)?(?:指令|指示|提示)|(?:以前|システム)の指示|이전\s*지시", I)
OVERRIDE_VOID = lazy_compile(
    r"\b(?:out\s+of\s+date|outdated|obsolete|void|superseded|cancell?ed|revoked|no\s+longer\s+"
    r"(?:valid|appl(?:y|ies)|in\s+effect)|do(?:es)?\s+not\s+apply|(?:takes?|have|has)\s+precedence|"
    r"no\s+longer\s+binding|replaces|supersedes)\b"
    r"|\b(?:substitui|substituem|sustituye|reemplaza|remplace|ersetzt|zastępuje)\b"
    r"|\b(?:obsoletas|anuladas|sin\s+efecto|ya\s+no\s+(?:son\s+válidas|aplican)|prevalecen)"
    r"|\b(?:obsolètes|annulées|caduques|ne\s+s'appliquent\s+plus|priment)"
    r"|\b(?:veraltet|ungültig|außer\s+kraft|aufgehoben|gelten\s+nicht\s+mehr|vorrang)"
    r"|\b(?:inválidas|não\s+(?:valem|se\s+aplicam)|prevalecem)|\b(?:vervallen|verouderd|ongeldig)"
    r"|\b(?:usang|tidak\s+berlaku|batal|abaikan)\b"
    r"|устарел\w*|недействительн\w*|отмен\w+|не\s+действу\w*|приоритет\s+над"
    r"|过时|作废|无效|失效|不再适用|优先于|無効|破棄|適用されない|より優先|무효", I)
_LIST_START = lazy_compile(r"\s*(?:[-*+|>]|\d+[.)])\s")
_NEGATED_BEFORE = lazy_compile(r"\b(?:never|do\s+not|don'?t|must\s+not|should\s+not|avoid|nunca|"
                               r"jamais|niemals|не)\s*$", I)
_SENTENCE_END = lazy_compile(r"(?<=[.!?。！？])\s")
#: For each concept, words (lower case) of which every match holds one: the lines holding
#: them are found with one search per text for every auditor's words, and only there is the
#: concept's pattern tried.
STEMS: dict[str, tuple[str, ...]] = {
    "override": tuple(f"{first} {second}" for first in ("previous", "prior", "earlier",
                                                         "original", "system", "developer")
                      for second in ("instruction", "guidance", "rules", "message", "prompt")) + (
        "instructions are", "instructions were", "instructions have", "prompt is",
        "prompts are", "rules are", "rules were", "rules have", "guidelines are",
        "guidelines were", "guidelines have", "guidance you", "instructions you",
        "anything said", "anything written", "highest authority", "highest priority",
        "ultimate authority", "ultimate priority", "final authority", "supreme authority",
        "precedence over", "priority over", "vervallen", "instructies", "abaikan", "instruksi",
        "otoritas tertinggi", "anweisungen", "bisherigen regeln", "vorherigen regeln",
        "früheren regeln", "höchste", "systemprompt", "instrucciones anteriores",
        "instrucciones del sistema", "máxima autoridad", "maxima autoridad",
        "instructions précédentes", "instructions du système", "autorité suprême",
        "instruções anteriores", "instruções do sistema", "autoridade máxima", "istruzioni",
        "prompt de sistema", "prompt do sistema", "prompt del sistema", "prompt système",
        "and system", "or system", "and developer", "prevails", "prevalece", "prévaut",
        "hat vorrang",
        "инструкц", "указани", "авторитет", "приоритет", "指令", "指示", "提示", "规则", "权威",
        "优先", "の指示", "権限", "지시", "최고"),
    "ask": (
        "gather", "ask the user", "ask the human", "ask them for", "ask for", "from the user",
        "of the user", "from the human", "of the human", "from the client",
        "of the client", "from the customer", "of the customer", "the user for", "the user to",
        "the human for", "the human to", "paste", "share your", "share their", "share me",
        "share us", "share the user", "provide your", "provide their", "provide me",
        "provide us", "provide the user", "enter your", "enter their", "enter the user",
        "type your", "type their", "send me", "send us", "give me", "give us", "supply your",
        "supply their", "al usuario", "pega tu", "proporciona tu", "l'utilisateur", "collez", "coller ", "colle ",
        "fournisse", "nutzer", "anwender", "fordere", "erfrage", "ao usuário", "ao usuario",
        "cole ", "all'utente", "poproś", "popros", "vraag de gebruiker", "minta pengguna", "пользовател",
        "用户", "ユーザーに", "사용자에게"),
    "hide": tuple(f"{neg} {verb}" for neg in ("not", "n't", "never")
                  for verb in ("tell", "inform", "notify", "mention", "reveal", "disclose",
                               "quote", "repeat")) + (
        "without telling", "without informing", "without notifying", "secretly", "covertly",
        "silently", "quietly", "hidden from", "sin decir", "sin avisar", "sin informar",
        "no le", "no digas", "no informes", "no menciones", "no muestres", "en secreto",
        "silenciosamente", "sans le", "sans dire", "sans prévenir", "sans informer",
        "sans montrer", "ne dis", "ne dites", "ne mentionne", "ne montre", "ne signale",
        "ne le ", "discrètement", "en silence", "ohne", "nicht", "heimlich", "unbemerkt",
        "stillschweigend", "erwähne", "without mentioning", "not list", "n't list", "never list",
        "not include these", "not show these", "history", "transcript", "no hace falta",
        "sin comentarlo", "nie informuj", "nie mów", "nie wspominaj", "bez wiedzy", "sem avisar", "sem contar", "sem informar", "não diga",
        "não mencione", "não mostre", "não informe", "senza dire", "senza avvisare",
        "zonder de gebruiker", "vertel de gebruiker", "jangan", "tanpa memberi", "diam-diam",
        "не нужно", "не надо", "не следует", "не говори", "не сообщай", "не упоминай",
        "не показывай", "без ведома", "незаметно", "втихую", "不要", "悄悄", "静默", "偷偷",
        "ユーザーに", "こっそり", "黙って", "言及しない", "表示しない", "알리지", "말하지",
        "표시하지", "쓰지", "몰래", "조용히"),
    "scope": (
        "skill is installed", "skill is loaded", "skill is enabled", "skill is active",
        "apply to every", "apply to all", "apply to each", "applies to every",
        "applies to all", "applies to each", "even if the user", "even when the user",
        "unrelated to", "tools of any", "tools of every", "tools of other", "tool of any",
        "tool of every", "tool of other", "any server", "other server", "solange diese",
        "für alle werkzeuge", "auch bei aufgaben", "mientras est", "para todas las herramientas",
        "tant que ce", "pour tous les outils", "enquanto est", "para todas as ferramentas",
        "пока этот", "для всех инструментов", "пока установлен", "пока загружен",
        "пока активен", "при любом", "any other server", "cualquier otro servidor",
        "n'importe quel", "jedem anderen server", "qualquer outro servidor", "любого другого",
        "任何其他服务器", "只要", "所有工具", "所有的工具", "每当", "任何服务器",
        "用户的其他工具", "このスキルが", "すべてのツール", "스킬이", "모든 도구", "모든도구"),
    "call": (
        "when call", "when you call", "when you use", "when you invoke", "when you run",
        "whenever", "when using", "when invok", "when running", "each time", "every time", "jeder aufruf", "wenn du", "cuando llames", "cuando uses",
        "cuando invoques", "lorsque tu", "lorsque vous", "quand tu", "quand vous", "ao chamar",
        "вызове", "调用", "使用", "呼び出す"),
}


#: Every COLLECT match holds one of these; tried only in a file that sends somewhere outside.
COLLECT_STEMS = (
        "collect", "gather", "harvest", "dump", "copy", "read out", "recoge", "recopila",
        "extrae", "copia", "récupère", "copie", "sammle", "sammeln", "kopiere", "auslesen",
        "verzamel", "kumpulkan", "colete", "odczytaj", "zbierz", "skopiuj", "собер", "собрат", "скопиру", "выгрузи", "收集",
        "获取", "读取", "复制", "収集", "取得", "読み取", "コピー", "수집", "복사")
