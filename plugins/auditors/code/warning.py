"""Whether a fenced example in a document stands under a warning written in any language
("Nunca ejecutes esto", "攻撃の例", "Правило обнаружения"): the heading above it or the lead
paragraph before it warns. :func:`lemon_core.auditor_kit.is_warning` reads English (and drops
the hit); this reads the twenty most used languages, and the code auditor only lowers a block
to a warning for it, saying so — a skill's own scripts that run are never excused."""

from __future__ import annotations

import re

from lemon_core.auditor_kit import Document, Line, is_warning
from lemon_core.auditor_kit.lazy import lazy_compile

#: Phrases of a warning or a teaching context, lower case. One in a Latin or Cyrillic script
#: must start a word (``atak`` is not ``zatakować``'s middle); others match anywhere.
_PHRASES = (
    # es
    "nunca ejecut", "no ejecut", "no lo ejecut", "no uses", "ejemplo de ataque", "ataque",
    "malicios", "peligros", "regla de detección", "reglas de detección", "indicadores de compromiso",
    "no hagas", "qué no hacer",
    # pt
    "nunca execute", "não execute", "não rode", "exemplo de ataque", "perigos",
    "regra de detecção", "regras de detecção", "indicadores de comprometimento", "não faça",
    # fr
    "n'exécutez jamais", "n’exécutez jamais", "n'exécutez pas", "n’exécutez pas",
    "ne jamais exécuter", "ne pas exécuter", "exemple d'attaque", "exemple d’attaque", "attaque",
    "malveillant", "dangereu", "règle de détection", "règles de détection",
    "indicateurs de compromission", "à ne pas faire", "ne faites pas",
    # de
    "niemals ausführen", "nicht ausführen", "führen sie niemals", "führen sie diesen befehl nie",
    "angriff", "bösartig", "schädlich", "gefährlich", "erkennungsregel",
    "kompromittierungsindikator", "nicht nachmachen",
    # it
    "non eseguire", "mai eseguire", "esempio di attacco", "attacco", "dannos", "malevol",
    "pericolos", "regola di rilevamento", "regole di rilevamento",
    # ru / uk
    "никогда не запуск", "никогда не выполн", "не запускайте", "не выполняйте", "атак",
    "вредонос", "опасн", "правило обнаружения", "правила обнаружения",
    "индикатор компрометации", "індикатор компрометації", "ніколи не запуск", "шкідлив",
    "небезпечн", "правило виявлення",
    # pl / nl / tr / id / vi
    "nigdy nie uruchamiaj", "nie uruchamiaj", "złośliw", "niebezpieczn", "reguła wykrywania",
    "voer nooit", "nooit uitvoeren", "niet uitvoeren", "aanval", "kwaadaardig", "gevaarlijk",
    "asla çalıştırma", "çalıştırmayın", "saldırı", "kötü amaçlı", "tehlikeli",
    "jangan jalankan", "jangan menjalankan", "serangan", "berbahaya", "aturan deteksi",
    "không bao giờ chạy", "đừng chạy", "không chạy", "tấn công", "độc hại", "nguy hiểm",
    # zh / ja / ko
    "请勿", "不要运行", "不要执行", "切勿", "禁止", "攻击", "恶意", "危险", "检测规则", "入侵指标",
    "請勿", "不要執行", "攻擊", "惡意", "危險", "檢測規則", "実行しないで", "実行しない",
    "絶対に", "攻撃", "悪意", "危険", "検出ルール", "検知ルール", "侵害指標", "してはいけない",
    "실행하지 마", "공격", "악성", "위험", "탐지 규칙",
    # ar / fa / hi / th / bn / ur
    "لا تشغل", "لا تنفذ", "هجوم", "خبيث", "خطير", "اجرا نکنید", "هرگز", "حمله", "مخرب",
    "خطرناک", "मत चलाएं", "मत चलाओ", "कभी न", "हमला", "दुर्भावनापूर्ण", "खतरनाक",
    "ห้ามรัน", "อย่ารัน", "ห้ามเรียกใช้", "การโจมตี", "อันตราย", "চালাবেন না", "আক্রমণ",
    "ক্ষতিকর", "مت چلائیں", "حملہ", "خطرناک",
    # en: what the English reader leaves out
    "ioc", "iocs", "attack example", "example attack", "do not run", "don't run",
)


def _pattern() -> str:
    parts = []
    for phrase in sorted(set(_PHRASES), key=len, reverse=True):
        escaped = re.escape(phrase).replace(r"\ ", r"\s+")
        latin = phrase[0].isascii() or "\u0400" <= phrase[0] <= "\u04ff" or phrase[0] in "àâçéèêëîïôûùüÿñæœäöß"
        parts.append(rf"(?<![^\W\d_]){escaped}" if latin and phrase[0].isalpha() else escaped)
    return "|".join(parts)


_WARNS = lazy_compile(_pattern(), re.IGNORECASE)


def warns(text: str) -> bool:
    """Whether ``text`` (a heading, a lead sentence) warns, in any of the languages above or in
    English."""
    return _WARNS.search(text) is not None or is_warning(text)


def fence_lead(doc: Document, line: Line) -> str | None:
    """The words a fenced line stands under — the nearest heading above it and the last lines
    of the paragraph before its fence — that warn, or None when none does (or the line is not
    a fenced line of a document)."""
    if line.context != "fence" or doc.kind not in ("markdown", "text"):
        return None
    lines = doc.lines
    index = line.number - 1
    while index > 0 and lines[index - 1].context == "fence":
        index -= 1
    index -= 1  # the line before the opening fence
    while index >= 0 and not lines[index].text.strip():
        index -= 1
    lead = [lines[i].text for i in range(max(0, index - 1), index + 1)
            if lines[i].context in ("prose", "quote", "heading")]
    while index >= 0 and lines[index].context != "heading":
        index -= 1
    if index >= 0:
        lead.append(lines[index].text)
    for text in lead:
        if warns(text):
            return text.strip().lstrip("#>").strip()[:80]
    return None
