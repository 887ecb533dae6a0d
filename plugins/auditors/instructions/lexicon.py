"""The concepts an instruction is read for, each a lexicon of phrases in the twenty most used
languages (English, Chinese, Hindi, Spanish, French, Arabic, Bengali, Portuguese, Russian, Urdu,
Indonesian, German, Japanese, Turkish, Vietnamese, Korean, Italian, Persian, Polish, Ukrainian,
Dutch, Thai).

A phrase is lower case; a space matches any run of white space; a phrase ending in ``=``
must end a word (``pin=`` is not ``ping``); one in a Latin or Cyrillic script must start a
word. The phrases are folded like the text they are searched in (:mod:`.fold`), so a Persian
zero-width non-joiner or a full-width letter is no obstacle. What each concept means, and how
the concepts make a finding, is :mod:`.clauses`.
"""

from __future__ import annotations

from lemon_plugins.auditors.instructions.lexicon_acts import ACTS

#: A secret: a credential, a payment card, a wallet's words, or a file or store holding one.
SECRET = (
    # en
    "token", "api key", "api-key", "apikey", "access key", "secret key", "secret access key",
    "client secret", "deploy key", "private key", "ssh key", "password", "passphrase", "passcode", "pin=",
    "pins=", "otp=", "one-time code", "one-time password", "2fa code", "verification code",
    "security code", "seed phrase", "recovery phrase", "mnemonic", "credentials", "credential=",
    "cookies", "session cookie", "card number", "credit card", "debit card", "cvv", "cvc=",
    "id_rsa", "id_ed25519=", "~/.ssh", "~/.aws", "~/.netrc", ".git-credentials", "keychain",
    "login data", ".env=", "kubeconfig", "wallet.dat",
    # zh
    "令牌", "密码", "口令", "密钥", "私钥", "助记词", "凭证", "凭据", "验证码", "银行卡号", "信用卡",
    "卡号", "安全码", "恢复短语",
    # ja
    "トークン", "パスワード", "秘密鍵", "apiキー", "認証情報", "暗証番号", "クッキー", "シードフレーズ",
    "カード番号", "認証コード", "リカバリーフレーズ",
    # ko
    "토큰", "비밀번호", "암호", "api 키", "개인 키", "비밀 키", "자격 증명", "쿠키", "카드 번호",
    "인증 코드", "시드 구문", "복구 구문",
    # hi, bn, ur
    "टोकन", "पासवर्ड", "सीक्रेट", "ओटीपी", "पिन", "क्रेडिट कार्ड", "कार्ड नंबर", "सीड फ्रेज़",
    "रिकवरी फ्रेज़", "कुकी", "निजी कुंजी", "পাসওয়ার্ড", "টোকেন", "গোপন কী", "কার্ড নম্বর",
    "পিন", "پاس ورڈ", "ٹوکن", "خفیہ کلید", "کارڈ نمبر",
    # es
    "contraseña", "clave de api", "clave api", "clave secreta", "clave privada", "credenciales",
    "número de su tarjeta", "número de tarjeta", "número de la tarjeta", "tarjeta de crédito",
    "código de seguridad", "frase semilla", "frase de recuperación", "código de verificación",
    # fr
    "mot de passe", "mots de passe", "jeton", "clé api", "clé d'api", "clé privée",
    "clé secrète", "identifiants", "numéro de carte", "carte bancaire", "cryptogramme",
    "code de vérification", "phrase de récupération",
    # de
    "passwort", "kennwort", "api-schlüssel", "privaten schlüssel", "privater schlüssel",
    "geheimen schlüssel", "zugangsdaten", "anmeldedaten", "kartennummer", "kreditkarte",
    "tan=", "wiederherstellungsphrase", "seed-phrase",
    # pt
    "senha", "chave de api", "chave api", "chave privada", "chave secreta", "credenciais",
    "número do cartão", "cartão de crédito", "frase de recuperação", "código de verificação",
    # it
    "chiave api", "chiave privata", "chiave segreta", "credenziali", "numero della carta",
    "carta di credito", "codice otp", "frase di recupero",
    # ru, uk
    "пароль", "пароли", "токен", "api-ключ", "ключ api", "секретный ключ", "приватный ключ",
    "закрытый ключ", "учётные данные", "учетные данные", "номер карты", "сид-фраз",
    "фраза восстановления", "фразу восстановления", "куки", "код подтверждения", "облікові дані",
    "номер картки", "файли cookie", "сід-фраз", "код підтвердження", "приватний ключ",
    # ar, fa
    "كلمة المرور", "كلمة السر", "رمز التحقق", "الرمز المميز", "مفتاح api", "المفتاح الخاص",
    "المفتاح السري", "بيانات الاعتماد", "رقم البطاقة", "رقم بطاقته", "بطاقته الائتمانية",
    "بطاقة الائتمان", "عبارة الاسترداد", "ملفات تعريف الارتباط", "رمز عبور", "گذرواژه",
    "کلمه عبور", "کد یکبار مصرف", "توکن", "کلید خصوصی", "کلید api", "شماره کارت",
    "عبارت بازیابی", "کوکی",
    # tr
    "şifre", "parola", "api anahtar", "özel anahtar", "gizli anahtar", "kimlik bilgileri",
    "kart numara", "kredi kartı", "kurtarma ifade", "tohum ifade", "çerez", "doğrulama kodu",
    # vi
    "mật khẩu", "khóa api", "khóa riêng", "khóa bí mật", "thông tin đăng nhập", "số thẻ",
    "thẻ tín dụng", "cụm từ khôi phục", "mã otp", "mã xác minh",
    # id
    "kata sandi", "kunci api", "kunci privat", "kunci rahasia", "kredensial", "nomor kartu",
    "kartu kredit", "frasa pemulihan", "kode otp",
    # pl
    "hasło", "hasła", "hasłem", "klucz api", "klucz prywatny", "dane logowania", "numer karty",
    "karta kredytowa", "fraza odzyskiwania", "kod jednorazowy", "ciasteczka",
    # nl
    "wachtwoord", "api-sleutel", "privésleutel", "inloggegevens", "kaartnummer", "creditcard",
    "herstelzin",
    # th
    "รหัสผ่าน", "โทเค็น", "คีย์ส่วนตัว", "คีย์ api", "ข้อมูลรับรอง", "หมายเลขบัตร", "บัตรเครดิต",
    "วลีกู้คืน", "คุกกี้", "รหัส otp",
)

#: Sending something away (a destination makes it leave the machine).
SEND = (
    "send", "sent=", "post ", "posts=", "upload", "submit", "forward", "transmit", "e-mail it",
    "email it", "email them", "exfiltrat", "inclu", "append", "embed", "add it to", "add them to",
    "добавь", "додай", "أضف", "ekle", "thêm", "tambahkan", "dodaj", "voeg", "füge", "ajoute",
    "aggiungi", "adicione", "añade", "agrega", "添加", "追加", "추가", "जोड़",
    "发送", "发给", "发到", "上传", "提交", "转发", "传到", "附加到", "送信", "送って", "送る",
    "アップロード", "転送", "보내", "전송", "업로드", "전달", "भेज", "अपलोड", "পাঠান", "آپلوڈ",
    "بھیج", "envía", "envíe", "enviar", "envíalo", "envíala", "sube ", "subir", "reenvía",
    "manda=", "envoie", "envoyez", "envoyer", "téléverse", "transmets", "transmettez",
    "schick", "sende", "senden", "übermittle", "hochlad", "lade sie hoch", "weiterleit",
    "envie", "envia", "mande", "carregue", "encaminhe", "transmita", "invia", "inoltra",
    "carica", "отправ", "пошли", "перешли", "загрузи", "передай", "надішли", "надіслати",
    "відправ", "завантаж на", "أرسل", "ارسل", "ارفع", "ارسال", "إرسال", "ابعث", "بفرست", "آپلود", "gönder",
    "yükle", "ilet", "gửi", "tải lên", "chuyển tiếp", "kirim", "unggah", "teruskan",
    "wyślij", "prześlij", "wysyłaj", "stuur", "verstuur", "verzend", "ส่ง", "อัปโหลด",
    # by mail, by sharing, by pasting or typing it into a form (a form at a host is a send)
    "emailed", "e-mailed", "mailed", "mail it", "mail them", "share it", "share them",
    "share the", "share with", "paste it", "paste them", "paste the", "type it into",
    "type them into", "type their", "type your", "enter it in", "into the form", "in the form",
    "fill in the form", "form at", "forwarded", "submitted", "uploaded", "sent to",
    "pégalo", "pégala", "pega ", "pegue", "compártel", "comparte", "formulario", "colle-l",
    "collez", "partage", "formulaire", "transmis", "einfügen", "füge ihn", "teile ", "teilen",
    "formular", "cole ", "cole-o", "compartilhe", "formulário", "incolla", "condividi",
    "modulo", "вставь", "поделись", "форму=", "форме=", "встав", "поділись", "貼り付け", "共有",
    "フォーム", "粘贴", "分享", "共享", "填入", "表单", "붙여넣", "공유", "양식", "साझा",
    "पेस्ट", "फ़ॉर्म", "yapıştır", "paylaş", "form=", "formu=", "dán ", "chia sẻ", "biểu mẫu",
    "nhập vào", "tempel", "bagikan", "formulir", "wklej", "udostępnij", "formularz", "plak ",
    "deel ", "formulier", "แชร์", "กรอก", "แบบฟอร์ม", "الصق", "شارك", "نموذج",
)

#: Asking the user to hand something over.
ASK = (
    "ask the user", "ask them", "ask for", "request the user", "prompt the user",
    "have the user", "get the user", "from the user", "paste your", "enter your",
    "provide your", "share your", "要求用户", "请用户", "向用户", "让用户", "ユーザーに", "사용자에게",
    "उपयोगकर्ता से", "ব্যবহারকারীর কাছ", "صارف سے", "pide al usuario", "solicita al usuario",
    "pídele", "demande à l'utilisateur", "demandez à l'utilisateur", "frage den nutzer",
    "frag den nutzer", "bitte den nutzer", "peça ao usuário", "solicite ao usuário",
    "chiedi all'utente", "попроси пользовател", "запроси у пользовател", "попроси користувача",
    "اطلب من المستخدم", "از کاربر", "kullanıcıdan", "yêu cầu người dùng", "minta pengguna",
    "poproś użytkownika", "vraag de gebruiker", "จากผู้ใช้", "ขอให้ผู้ใช้",
    # indirect and polite: the user invited or made to hand it over, or it collected
    "invite the user", "the user to type", "the user to enter", "the user to paste",
    "the user to provide", "the user to share", "needs your", "need your",
    "ユーザーに", "尋ね", "聞いて", "물어보", "요청하", "से लें", "ผู้ใช้กรอก", "เชิญผู้ใช้",
    "pregunta al usuario", "necesita tu", "necesita su", "demande-lui", "a besoin de ton",
    "a besoin de votre", "benötigt dein", "braucht dein", "precisa do seu", "precisa da sua",
    "ha bisogno del", "нужен ваш", "нужен твой", "спроси", "запитай", "kullanıcıya sor",
    "hỏi người dùng", "tanyakan", "zapytaj użytkownika", "vraag de gebruiker naar",
)

#: Taking something from the machine.
READ = (
    "read ", "cat ", "export", "copy", "collect", "gather", "harvest", "dump", "extract",
    "读取", "导出", "复制", "收集", "読み取", "エクスポート", "コピー", "읽", "내보내", "복사", "수집",
    "पढ़", "निर्यात", "lee ", "exporta", "copia", "recopila", "lis ", "lisez", "exporte",
    "copie", "lies ", "exportiere", "kopiere", "sammle", "leia", "leggi", "esporta",
    "прочитай", "прочти", "экспортируй", "скопируй", "собери", "прочитай", "експортуй",
    "скопіюй", "اقرأ", "صدّر", "انسخ", "بخوان", "کپی", "oku", "dışa aktar", "kopyala",
    "đọc", "xuất", "sao chép", "baca", "ekspor", "salin", "odczytaj", "wyeksportuj",
    "skopiuj", "lees ", "exporteer", "kopieer", "อ่าน", "ส่งออก", "คัดลอก",
)

__all__ = ["ACTS", "ASK", "READ", "SECRET", "SEND"]
