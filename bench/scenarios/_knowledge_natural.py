"""Harder knowledge-update cases (`bench.scenarios.knowledge_natural`), written for this
project in the phrasing people type rather than in tidy sentences: lower case, no change word
("first night in the new flat in hackney"), the update in passing inside a longer message,
split over two turns, numbers in words, about other people. Compatible pairs share a slot's
words without being an update (someone else's fact, another project's deadline, the past).

The cases of `_knowledge_cases` are the canonical ones the engine was built on; these are a
second, harder set for tuning. Neither is a held-out set.
"""

from __future__ import annotations

from ._knowledge_cases import Compatible, Update

_PROJECT_NOTES = (
    "Notes from today's all-hands, for the record: Q3 revenue came in slightly above plan, the "
    "Warsaw office opens in September, and the hiring freeze is lifted for engineering only. "
    "Since Rajesh left at the end of last month, Mei Lin has taken over as CTO and will run "
    "the architecture review from now on. The offsite agenda is still being drafted and "
    "everyone should send topics to the people team by Friday."
)
_VIENNA = (
    "Here's the summary of the supplier call you asked for. They can deliver the first batch "
    "of 400 units by the 12th if we confirm the colour spec this week, the second batch would "
    "follow four weeks later, and they want 30% up front. I pushed back on the deposit and "
    "they may go down to 20%. (btw I'm writing this from my new apartment in Vienna, the move "
    "went fine, internet got connected yesterday.) Can you remind me to chase them on Thursday?"
)
_OCADO = (
    "Long day. The sprint review ran over because the demo environment broke twice, and then I "
    "had to rewrite the ingestion job before the weekend freeze. For context, I'm a data "
    "engineer at Ocado, on the forecasting team, so most of my week is pipelines and arguing "
    "about schemas. Anyway, I'm going to make pasta and watch something mindless tonight."
)
_MONZO = (
    "ok quick life update since it's been a while: finished my notice period on friday, had a "
    "little leaving do, cried a bit. monday was my first day at monzo, backend team, payments "
    "squad. everyone's super friendly and the office has a ridiculous amount of snacks. still "
    "figuring out the codebase but it's been a good week overall, and the commute is shorter."
)

NATURAL_UPDATES: tuple[Update, ...] = (
    Update("move", "ugh the commute from croydon is killing me, 70 mins each way",
           "first night in the new flat in hackney!! can walk to work now",
           "where do I live?", "croydon", "hackney"),
    Update("move", "We've been renting in Porto since 2019 and honestly love the neighbourhood.",
           "Quick one: the movers dropped the last boxes at our place in Braga this morning, so "
           "if you need to send anything, use the new address.",
           "Which city is our home now?", "Porto", "Braga"),
    Update("move", "Edinburgh has been home for almost a decade now.",
           "signed the lease, we're officially Glasgow people as of friday",
           "Where am I living?", "Edinburgh", "Glasgow", lead="so we finally did it"),
    Update("move", "I'm in Munich, so the time zone is CET for our calls.", _VIENNA,
           "What city am I in?", "Munich", "Vienna"),
    Update("job", "I'm a nurse at St Mary's, mostly night shifts.",
           "handed in my badge at st marys today. starting at the community clinic on elm "
           "street next month as a practice nurse",
           "Where do I work?", "mostly night", "community clinic"),
    Update("job", "Work at Deloitte is intense this quarter.",
           "Day three at the startup and nobody has asked me to make a slide deck yet, it's "
           "glorious. Leaving Deloitte was the right call.",
           "What company do I work for?", "intense this quarter", "startup"),
    Update("job", "I teach maths at a secondary school in Leeds.",
           "officially retired from teaching as of last friday! now i'm doing freelance "
           "tutoring a few hours a week",
           "what do I do for work?", "secondary school", "freelance tutoring"),
    Update("job", _OCADO, _MONZO, "Where do I work?", "Ocado", "monzo"),
    Update("job", "My brother Sam is an accountant at KPMG.",
           "Sam quit KPMG, he's training to be a pilot now, can you believe it",
           "What does Sam do for a living?", "accountant", "pilot"),
    Update("manager", "My manager Priya is great about flexible hours.",
           "Priya got promoted to director so I report to Marcus now.",
           "Who is my manager?", "flexible hours", "Marcus"),
    Update("manager", "Reporting to Helen for the migration project.",
           "re-org happened. new boss is a guy called Tom Okafor, seems fine",
           "Who's my boss?", "Helen", "Okafor"),
    Update("relationship", "Going to dinner with my boyfriend Leo on Saturday.",
           "leo and i broke up last week. it was mutual, i'm okay",
           "Am I seeing anyone?", "dinner with my boyfriend", "broke up"),
    Update("relationship", "My girlfriend Ana and I have been together three years.",
           "Ana said yes!!! we're engaged",
           "What's my relationship status with Ana?", "together three years", "engaged"),
    Update("children", "Our son Theo is our only child, he's four.",
           "Baby girl arrived Tuesday night, we named her Iris. Theo is obsessed with her.",
           "How many kids do we have?", "only child", "Iris"),
    Update("children", "We have two kids, both in primary school.",
           "with the twins born last month that makes four of them running around the house",
           "how many children do we have?", "two kids", "four of them"),
    Update("pets", "Our dog Biscuit is 14 now, slowing down a lot.",
           "We had to put Biscuit down on Sunday. The house is so quiet.",
           "Do I have a dog?", "slowing down", "put Biscuit down"),
    Update("diet", "I'm vegan, so no dairy for me please.",
           "Been eating fish again since the doctor said my iron is low, so pescatarian "
           "these days.", "What's my diet?", "no dairy", "pescatarian"),
    Update("diet", "i eat pretty much anything honestly, no restrictions",
           "started keto two weeks ago, no bread no pasta no sugar, it's brutal",
           "what diet am I on?", "anything honestly", "keto"),
    Update("schedule", "Piano lessons are on Tuesdays at 5.",
           "the piano teacher moved my lesson to thursday afternoons from now on",
           "When is my piano lesson?", "Tuesdays at 5", "thursday"),
    Update("schedule", "My standup is at 9:30 every morning.",
           "team voted to push standup to 10:15 so the west coast folks can join",
           "What time is my standup?", "9:30", "10:15"),
    Update("schedule", "The book club meets the first Monday of the month.",
           "Book club is switching to the last Sunday of each month, Jane's idea.",
           "When does the book club meet?", "first Monday", "last Sunday"),
    Update("numbers", "I run about 20 km a week.",
           "upped my running to forty km a week for the marathon block",
           "How much do I run each week?", "20 km", "forty"),
    Update("numbers", "My rent is 1,400 a month.",
           "landlord hiked the rent, it's 1,650 from january",
           "How much is my rent?", "1,400", "1,650"),
    Update("budget", "The budget for the kitchen renovation is 15k.",
           "we've had to stretch the kitchen budget to about 22 thousand after the plumber's "
           "quote", "What's the kitchen renovation budget?", "15k", "22 thousand"),
    Update("budget", "Marketing gave us 5,000 EUR for the launch event.",
           "Finance cut the launch event money in half, so we're working with 2,500 now.",
           "How much money do we have for the launch event?", "5,000", "2,500"),
    Update("deadline", "The grant application is due March 3.",
           "Good news, the funder gave everyone an extra two weeks on the grant, new due date "
           "is the 17th of March.", "When is the grant application due?", "March 3", "17th"),
    Update("deadline", "Thesis draft has to be with my supervisor by end of May.",
           "supervisor is away in may so the thesis draft deadline slid to mid june",
           "When is my thesis draft due?", "end of May", "mid june"),
    Update("decision", "We decided to go with AWS for the new platform.",
           "After the cost review we're going GCP instead, AWS is off the table.",
           "Which cloud provider are we using for the new platform?", "decided to go with AWS",
           "GCP"),
    Update("decision", "We'll name the product Lumen.",
           "legal flagged a trademark clash so Lumen is dead, we're calling it Halo",
           "What's the product called?", "name the product Lumen", "Halo"),
    Update("decision", "The offsite will be in Lisbon.",
           "Scrap Lisbon for the offsite, flights were insane. We booked a venue in Valencia.",
           "Where is the offsite?", "will be in Lisbon", "Valencia"),
    Update("preference", "Coffee is my lifeline, three cups a day.",
           "I've quit coffee, green tea only now, sleeping way better",
           "What do I drink in the morning?", "three cups", "green tea"),
    Update("preference", "My favourite band is Radiohead.",
           "honestly these days nothing beats Fontaines D.C. for me, on repeat constantly",
           "What's my favourite band?", "Radiohead", "Fontaines"),
    Update("tool", "I keep all my notes in Evernote.",
           "finished migrating everything from evernote into obsidian this weekend, finally",
           "What app do I use for notes?", "keep all my notes", "obsidian"),
    Update("tool", "Our team tracks tasks in Jira.",
           "we moved the board over to linear, jira is read-only from monday",
           "What do we use to track tasks?", "tracks tasks in Jira", "linear"),
    Update("health", "I take 50 mg of sertraline each morning.",
           "doctor bumped my sertraline up to 100 mg",
           "What dose of sertraline do I take?", "50 mg", "100 mg"),
    Update("health", "My knee is fine, I'm running every day.",
           "tore my ACL playing football, no running for six months",
           "How is my knee?", "knee is fine", "ACL"),
    Update("vehicle", "I drive a 2012 Golf.",
           "sold the golf!! picked up a used Model 3 yesterday",
           "What car do I drive?", "2012", "Model 3"),
    Update("vehicle", "I cycle to work every day.",
           "got an e-scooter, so no more cycling to work, way less sweaty",
           "How do I get to work?", "cycle to work every day", "e-scooter"),
    Update("contact", "My mobile number is 07700 900123.",
           "new phone, new number: 07700 900456, the old one's disconnected",
           "What's my phone number?", "900123", "900456"),
    Update("contact", "Email me at jo.smith@oldmail.com.",
           "please use jo@smithdesign.co from now on, I'm closing the old account",
           "What's my email address?", "jo.smith", "smithdesign"),
    Update("other person", "My sister Kate lives in Perth.",
           "kate finally moved back from australia, she's in bristol now, 20 mins from us",
           "Where does Kate live?", "Perth", "bristol"),
    Update("other person", "Dad still works at the steel plant.",
           "dad retired in october, he's gardening full time lol",
           "Does my dad still work?", "steel plant", "retired"),
    Update("other person", "Our CTO is Rajesh.", _PROJECT_NOTES,
           "Who is our CTO?", "Our CTO is Rajesh", "Mei Lin"),
)

NATURAL_COMPATIBLE: tuple[Compatible, ...] = (
    Compatible("residence", "My sister lives in Oslo.", "I live in Bergen."),
    Compatible("deadline", "The Henderson report is due Friday.",
               "The budget review deadline is next Wednesday."),
    Compatible("residence", "We went to Rome for our honeymoon.", "We live in Milan."),
    Compatible("residence", "I live in Dublin.",
               "If I ever moved abroad it would be to Japan, I think."),
    Compatible("employer", "My husband works at Google.", "I work at a small design agency."),
    Compatible("diet", "I'm allergic to peanuts.", "I love almond butter on toast."),
    Compatible("diet", "My daughter is vegetarian.", "I eat meat most days."),
    Compatible("schedule", "Team standup is at 9.", "My dentist appointment is at 9 on Thursday."),
    Compatible("preference", "I drink coffee in the morning.",
               "I have a cup of chamomile tea before bed."),
    Compatible("tool", "I use VS Code at work.", "For personal projects I use Neovim."),
    Compatible("budget", "The kitchen budget is 15k.", "The bathroom budget is 8k."),
    Compatible("residence", "I visited my friend in Boston last month.", "I live in New York."),
    Compatible("residence", "Tom lives in Leeds.", "Tom's brother lives in York."),
    Compatible("schedule", "I play tennis on Mondays.", "I do yoga on Wednesdays."),
    Compatible("contact", "My phone number is 555-0134.", "The office number is 555-0199."),
    Compatible("children", "We have two kids.", "My brother has three kids."),
    Compatible("residence", "I used to live in Paris.", "I live in Lyon."),
    Compatible("manager", "Maria is my manager.", "Maria's manager is Greg."),
    Compatible("job", "i'm a nurse", "my wife is a nurse too, we met at the hospital"),
    Compatible("pets", "we have a cat called miso", "my neighbour's cat keeps coming into our garden"),
)
