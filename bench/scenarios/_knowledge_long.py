"""Knowledge updates said inside long messages (`bench.scenarios.knowledge_long`), written for
this project: the newer statement is one sentence of a message over 1,200 bytes (so the
message is stored as several chunks), among other news, a pasted email, a list or a code
snippet, at the start, in the middle or near the end. Compatible pairs: a long message that
names the slot about someone or something else.

Tuning data, not a held-out set.
"""

from __future__ import annotations

from ._knowledge_cases import Compatible, Update

_SIGNOFF = (
    "Anyway, that's everything from me for now. Let me know how your week went and whether "
    "the thing with your landlord got sorted, and say hi to everyone from us."
)


def _long(*parts: str) -> str:
    """A message over 1,200 bytes: the parts, then a sign-off while it is shorter."""
    text = " ".join(parts)
    return text if len(text.encode()) > 1300 else f"{text} {_SIGNOFF}"


_WEEK_RANT = (
    "ok so this week has been a lot. monday the deploy pipeline fell over because someone "
    "rotated the registry credentials without telling anyone, and i spent most of the morning "
    "on a call with platform trying to figure out which of the six service accounts was "
    "actually being used. tuesday was better, we finally shipped the csv export that sales "
    "has been asking about since march, and nobody found a bug in it yet which feels "
    "suspicious."
)
_WEEKEND = (
    "The weekend was nice though. We went up to the lake on Saturday with the Hendersons, "
    "the water was freezing but the kids went in anyway, and we grilled way too many "
    "sausages. Sunday I mostly did laundry and tried to fix the wobbly shelf in the hallway, "
    "which is still wobbly, so that was a productive use of three hours."
)
_PASTED_EMAIL = (
    "Pasting the reply from the venue so you have it: \"Hi, thanks for your enquiry. We can "
    "hold the main hall for you for 48 hours. Catering is charged per head with a minimum of "
    "40 guests, AV is included, parking is limited to 20 spaces. Please note that the "
    "terrace is not available after 9pm due to noise restrictions. Kind regards, Fiona, "
    "Events Team.\" Not sure about the parking thing, people will have to get taxis."
)
_CODE = (
    "Also if you remember, the thing I was stuck on was this: `for row in reader: if "
    "row['status'] == 'active': totals[row['region']] += float(row['amount'])` and it kept "
    "throwing KeyError on the first row, turns out the file has a BOM so the first header is "
    "actually '\\ufeffstatus'. Opened it with encoding='utf-8-sig' and it works. Three hours "
    "of my life for one invisible character."
)
_LIST = (
    "Things I need to not forget this month: 1) renew the car insurance before the 20th, "
    "2) book the dentist for both kids, 3) send mum the photos from the christening, "
    "4) cancel the gym trial before it turns into a paid membership, 5) figure out what "
    "we're doing for the long weekend, 6) return the hedge trimmer to Dave next door, "
    "7) reply to the school about the trip consent form."
)
_READING = (
    "Been reading a lot on the train too. Finished the Le Guin one you recommended, loved "
    "the ending, and started a history of the Hanseatic League which is surprisingly gripping "
    "for a book about medieval shipping regulations. My plan is one fiction, one non-fiction, "
    "alternating, we'll see how long that lasts."
)
_HEALTH = (
    "Health-wise I'm fine, the cough finally went after nearly three weeks, and I've been "
    "trying to get to bed before midnight, which helps. The physio exercises for my shoulder "
    "are boring but they seem to be working, I can reach the top shelf again without wincing."
)
_TEAM = (
    "On the team side, we had the quarterly planning session and it went about as well as "
    "those ever go: too many priorities, not enough people, and a long argument about "
    "whether the mobile app rewrite counts as tech debt or a feature. We agreed to revisit it "
    "in two weeks, which means nobody agreed on anything."
)

LONG_UPDATES: tuple[Update, ...] = (
    Update("move", "We live in Leeds, in a terraced house near the park.",
           _long(_WEEK_RANT, "Biggest news though: we got the keys on Friday and we're "
                 "properly living in Sheffield now, the boxes are everywhere and the cat is "
                 "furious about it.", _WEEKEND, _LIST),
           "Where do we live?", "Leeds", "Sheffield"),
    Update("job", "I work as an analyst at Barclays.",
           _long(_READING, _HEALTH, "Work is very different since I started at the "
                 "Wellcome Trust three weeks ago, much slower pace than the bank and people "
                 "actually take lunch breaks.", _TEAM, _CODE),
           "Where do I work?", "Barclays", "Wellcome"),
    Update("budget", "The budget for the summer party is 3,000 pounds.",
           _long(_PASTED_EMAIL, "Also finance came back on the numbers and the summer party "
                 "now has 4,500 to play with, so we can afford the caterer after all.",
                 _TEAM, _LIST),
           "What's the budget for the summer party?", "3,000", "4,500"),
    Update("deadline", "The migration has to be finished by 30 June.",
           _long(_WEEK_RANT, _CODE, "Oh and the steering group agreed to push the migration "
                 "deadline to the end of September, because the vendor is late with the new "
                 "API.", _HEALTH),
           "When is the migration due?", "30 June", "September"),
    Update("manager", "My line manager is Claire Dawson.",
           _long(_TEAM, "Claire is leaving for a job in Singapore, so from next week I'm "
                 "reporting to Anil Mehta, who runs the data platform group.", _WEEKEND,
                 _READING),
           "Who is my manager?", "Claire Dawson", "Anil"),
    Update("schedule", "My therapy sessions are on Wednesday evenings.",
           _long(_LIST, _HEALTH, "The therapist changed her hours, so my sessions are on "
                 "Friday mornings at 8 from now on, which is early but fine.", _WEEK_RANT),
           "When are my therapy sessions?", "Wednesday evenings", "Friday mornings"),
    Update("children", "We have one daughter, Maya, she's six.",
           _long("Sorry for the radio silence, it has been chaos here.", "Our son Jonah was "
                 "born on the 3rd, a bit early but healthy, and Maya is thrilled to be a big "
                 "sister, she keeps trying to read him stories.", _WEEKEND, _LIST, _READING),
           "How many children do we have?", "one daughter", "Jonah"),
    Update("diet", "I'm vegetarian, I haven't eaten meat in ten years.",
           _long(_WEEK_RANT, _TEAM, "Random thing: I've started eating chicken and fish again "
                 "on the nutritionist's advice, so I'm not vegetarian anymore, which feels "
                 "weird after ten years.", _CODE),
           "Am I vegetarian?", "haven't eaten meat", "not vegetarian anymore"),
    Update("decision", "We chose Postgres as the database for the new service.",
           _long(_CODE, _TEAM, "Architecture review outcome: Postgres is out for the new "
                 "service and we're going with DynamoDB, mostly because of the ops burden.",
                 _HEALTH, _READING),
           "Which database does the new service use?", "chose Postgres", "DynamoDB"),
    Update("contact", "My work phone number is 020 7946 0321.",
           _long(_LIST, "IT swapped our desk phones for softphones, so my work number is "
                 "020 7946 0877 now, the old one forwards for a month.", _WEEK_RANT, _WEEKEND),
           "What's my work phone number?", "0321", "0877"),
    Update("other person", "My friend Dmitri lives in Prague.",
           _long(_WEEKEND, _READING, _HEALTH, "Dmitri called, he's moved to Lisbon for his "
                 "girlfriend's job and is already complaining about the hills."),
           "Where does Dmitri live?", "Prague", "Lisbon"),
    Update("numbers", "I cycle about 50 km a week.",
           _long(_TEAM, _LIST, "Training is going well, I'm up to 120 km a week on the "
                 "bike now that the evenings are light.", _PASTED_EMAIL),
           "How far do I cycle each week?", "50 km", "120 km"),
)

LONG_COMPATIBLE: tuple[Compatible, ...] = (
    Compatible("residence", "We live in Bristol.",
               _long(_WEEKEND, "My cousin Ruth just moved to Cardiff for her PhD, she's "
                     "loving it.", _LIST, _WEEK_RANT)),
    Compatible("deadline", "The tax return is due 31 January.",
               _long(_TEAM, "The migration deadline is the end of September.", _CODE,
                     _HEALTH)),
    Compatible("manager", "Anil Mehta is my manager.",
               _long(_WEEK_RANT, "My wife's manager is retiring, she'll report to someone "
                     "called Petra from next month.", _READING, _LIST)),
    Compatible("budget", "The kitchen budget is 15k.",
               _long(_PASTED_EMAIL, "The budget for the garden is 2k, mostly for the "
                     "fence.", _WEEKEND, _TEAM)),
    Compatible("job", "I'm a teacher at Hillside Primary.",
               _long(_HEALTH, "My brother started at Deloitte on Monday as a consultant.",
                     _LIST, _READING)),
    Compatible("pets", "We have a dog called Pepper.",
               _long(_WEEKEND, "The Hendersons got a kitten, she's called Mochi and she "
                     "attacks everyone's shoelaces.", _CODE, _TEAM)),
)
